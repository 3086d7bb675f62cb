import { Writable } from 'node:stream';

/** A log destination that keeps every line, for asserting what was (and was not) logged. */
export function captureLines(): { stream: Writable; lines: () => Record<string, unknown>[]; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  return {
    stream,
    text: () => text,
    lines: () =>
      text
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}
