import type { Readable } from 'node:stream';

export interface BoundedBody {
  text: string;
  /** True when the body was longer than the limit and the rest was discarded. */
  truncated: boolean;
}

/**
 * Reads at most `maxBytes` of a response body and destroys the stream when there is
 * more, so an unbounded or huge body is never buffered. Never throws: a body cut off
 * by an abort or a reset socket yields what arrived before.
 */
export async function readBoundedBody(body: Readable, maxBytes: number): Promise<BoundedBody> {
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  try {
    for await (const chunk of body) {
      const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
      const room = maxBytes - size;
      if (buffer.length > room) {
        if (room > 0) chunks.push(buffer.subarray(0, room));
        size = maxBytes;
        truncated = true;
        break; // leaving the loop destroys the stream: the rest is never read
      }
      chunks.push(buffer);
      size += buffer.length;
    }
  } catch {
    // Aborted at the deadline or the connection dropped mid-body: keep what we have.
  } finally {
    if (!body.destroyed && !body.readableEnded) body.destroy();
  }
  return { text: Buffer.concat(chunks, size).toString('utf8'), truncated };
}
