import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { invalid } from './errors';

/** Where a page ended: the sort value and id of its last record, and how many records came before the next page. */
export interface Position {
  value: string | null;
  id: string;
  offset: number;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

const refused = () => invalid('cursor', 'The cursor is invalid, or was made for another list, filters or sort');

function isPosition(value: unknown): value is Position {
  const p = value as Position;
  return (
    typeof p === 'object' &&
    p !== null &&
    (typeof p.value === 'string' || p.value === null) &&
    typeof p.id === 'string' &&
    Number.isSafeInteger(p.offset) &&
    p.offset >= 0
  );
}

/**
 * Cursors are sealed with AES-256-GCM under a key derived from CURSOR_SECRET, with the list they
 * belong to (tenant, list, path parameters, filters and sort) as associated data: opaque to clients
 * (no sort value, such as a title, shows in a URL) and refused when forged, altered or presented
 * to another tenant or list.
 */
export class CursorCodec {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = Buffer.from(hkdfSync('sha256', secret, 'worktrack', 'list cursors', 32));
  }

  seal(position: Position, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv).setAAD(Buffer.from(context, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(JSON.stringify(position), 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64url');
  }

  /** The position a cursor names, or a 400 naming `cursor`. */
  open(cursor: string, context: string): Position {
    const bytes = Buffer.from(cursor, 'base64url');
    if (bytes.length <= IV_BYTES + TAG_BYTES) throw refused();
    let position: unknown;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, bytes.subarray(0, IV_BYTES)).setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      position = JSON.parse(Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8'));
    } catch {
      throw refused();
    }
    if (!isPosition(position)) throw refused();
    return position;
  }
}

const codecs = new Map<string, CursorCodec>();

/** One codec per secret, so the key is derived once. */
export function cursorCodec(secret: string): CursorCodec {
  let codec = codecs.get(secret);
  if (!codec) codecs.set(secret, (codec = new CursorCodec(secret)));
  return codec;
}
