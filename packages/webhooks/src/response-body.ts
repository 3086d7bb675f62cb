import type { Readable } from 'node:stream';

/** undici's response body: a Readable that can also be consumed whole. */
export type ResponseBody = Readable & { text(): Promise<string> };

export interface BoundedBody {
  text: string;
  /** True when the body was longer than the limit and the rest was discarded. */
  truncated: boolean;
}

const noop = (): void => {};

/**
 * Reads at most `maxBytes` of a response body and destroys the stream as soon as
 * there is more, so a huge or endless body is never buffered (the connection is
 * dropped instead of drained). Never rejects: a body cut off by an abort or a reset
 * socket yields what arrived before.
 *
 * `declaredLength` is the response's Content-Length: when it fits, the body is read
 * whole through undici's faster consumer (undici refuses a body longer than declared).
 */
export async function readBoundedBody(body: ResponseBody, maxBytes: number, declaredLength?: number): Promise<BoundedBody> {
  if (declaredLength !== undefined && declaredLength <= maxBytes) {
    try {
      return { text: await body.text(), truncated: false };
    } catch {
      return { text: '', truncated: false };
    }
  }
  return readStream(body, maxBytes);
}

function readStream(body: Readable, maxBytes: number): Promise<BoundedBody> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;

    const finish = (truncated: boolean): void => {
      if (settled) return;
      settled = true;
      body.off('data', onData);
      body.off('end', onDone);
      body.off('error', onDone);
      body.off('close', onDone);
      if (!body.destroyed && !body.readableEnded) body.destroy();
      resolve({ text: Buffer.concat(chunks, size).toString('utf8'), truncated });
    };
    const onData = (chunk: Buffer): void => {
      const room = maxBytes - size;
      if (chunk.length > room) {
        if (room > 0) chunks.push(chunk.subarray(0, room));
        size = maxBytes;
        finish(true);
        return;
      }
      chunks.push(chunk);
      size += chunk.length;
    };
    const onDone = (): void => finish(false);

    body.on('error', noop); // errors after we stop listening must not go unhandled
    body.on('data', onData);
    body.once('end', onDone);
    body.once('error', onDone);
    body.once('close', onDone);
  });
}
