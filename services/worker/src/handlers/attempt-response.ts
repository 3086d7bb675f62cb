import type { DeliveryResult } from '@worktrack/webhooks/deliver';

/** docs/decisions.md#delivery-log-and-recovery: an attempt keeps the first 4 KiB of the receiver's answer as text, and at most 4 KiB of its headers. */
export const RESPONSE_BODY_BYTES = 4096;
const RESPONSE_HEADER_BYTES = 4096;

/** Postgres stores no NUL in text or jsonb; a binary answer keeps its shape with U+FFFD instead. */
const storable = (text: string) => text.replaceAll('\0', '\uFFFD');

function firstBytes(text: string, bytes: number): string {
  const encoded = Buffer.from(text, 'utf8');
  return encoded.length <= bytes ? text : encoded.subarray(0, bytes).toString('utf8');
}

/** What the delivery log keeps of the receiver's answer; nulls when none arrived. */
export function recordedResponse(result: DeliveryResult): { body: string | null; headers: Record<string, string> | null } {
  if (result.responseHeaders === undefined) return { body: null, headers: null };
  let budget = RESPONSE_HEADER_BYTES;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(result.responseHeaders)) {
    const kept = firstBytes(storable(value), Math.max(0, budget - name.length));
    headers[name] = kept;
    budget -= name.length + Buffer.byteLength(kept);
  }
  return { body: firstBytes(storable(result.responseBody ?? ''), RESPONSE_BODY_BYTES), headers };
}
