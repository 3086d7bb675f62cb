import { Readable } from 'node:stream';

/** Re-streams a byte stream unchanged while counting its bytes and noting whether it failed. */
export class ByteTally {
  readonly stream: Readable;
  private counted = 0;
  private sourceError: unknown;

  constructor(source: Readable) {
    this.stream = Readable.from(this.passThrough(source));
  }

  get bytes(): number {
    return this.counted;
  }

  /** Whether `error` was raised by the source stream rather than by whoever consumed the tally. */
  isSourceError(error: unknown): boolean {
    return this.sourceError !== undefined && error === this.sourceError;
  }

  private async *passThrough(source: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
    try {
      for await (const chunk of source) {
        this.counted += chunk.byteLength;
        yield chunk;
      }
    } catch (error) {
      this.sourceError = error;
      throw error;
    }
  }
}
