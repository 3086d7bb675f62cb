interface Waiting<I, O> {
  item: I;
  resolve: (outcome: O) => void;
  reject: (err: unknown) => void;
}

/**
 * Group commit: the items submitted while a batch is being written go together in the next batch,
 * so a busy worker writes many items per statement and an idle one waits for nothing (the first
 * item leaves on the next turn of the event loop, with whatever else arrived in that turn). Each
 * submitter's promise settles with its own item's outcome once its batch has been written. A batch
 * that fails is written again item by item, so that one bad item fails alone.
 */
export class GroupCommit<I, O> {
  private waiting: Waiting<I, O>[] = [];
  private writing = false;

  constructor(
    /** Writes a batch and returns one outcome per item, in order. */
    private readonly write: (items: I[]) => Promise<O[]>,
    private readonly maxBatch = 200,
  ) {}

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      if (!this.writing) {
        this.writing = true;
        setImmediate(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    while (this.waiting.length > 0) await this.writeBatch(this.waiting.splice(0, this.maxBatch));
    this.writing = false;
  }

  private async writeBatch(batch: Waiting<I, O>[]): Promise<void> {
    let outcomes: O[];
    try {
      outcomes = await this.write(batch.map((w) => w.item));
    } catch (err) {
      if (batch.length === 1) return batch[0]!.reject(err);
      for (const one of batch) await this.writeBatch([one]);
      return;
    }
    for (const [i, w] of batch.entries()) w.resolve(outcomes[i]!);
  }
}
