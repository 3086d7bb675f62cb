import { GroupCommit } from '../src/group-commit';

describe('GroupCommit', () => {
  it('writes what is submitted meanwhile as one batch, and answers each submitter with its own outcome', async () => {
    const batches: number[][] = [];
    let release!: () => void;
    const firstWritten = new Promise<void>((resolve) => (release = resolve));
    const commit = new GroupCommit<number, number>(async (items) => {
      batches.push(items);
      if (batches.length === 1) await firstWritten;
      return items.map((n) => n * 10);
    });
    const first = commit.submit(1);
    await new Promise((resolve) => setImmediate(resolve));
    const rest = [commit.submit(2), commit.submit(3), commit.submit(4)];
    release();
    expect(await Promise.all([first, ...rest])).toEqual([10, 20, 30, 40]);
    expect(batches).toEqual([[1], [2, 3, 4]]);
  });

  it('gathers what arrives in the same turn of the event loop', async () => {
    const batches: string[][] = [];
    const commit = new GroupCommit<string, void>(async (items) => {
      batches.push(items);
      return items.map(() => undefined);
    });
    await Promise.all(['a', 'b', 'c'].map((item) => commit.submit(item)));
    expect(batches).toEqual([['a', 'b', 'c']]);
  });

  it('caps a batch', async () => {
    const sizes: number[] = [];
    const commit = new GroupCommit<number, void>(async (items) => {
      sizes.push(items.length);
      return items.map(() => undefined);
    }, 2);
    await Promise.all([1, 2, 3, 4, 5].map((n) => commit.submit(n)));
    expect(sizes).toEqual([2, 2, 1]);
  });

  it('writes a failed batch again item by item, so that only the bad item fails', async () => {
    const batches: string[][] = [];
    const commit = new GroupCommit<string, string>(async (items) => {
      batches.push(items);
      if (items.includes('bad')) throw new Error('constraint violated');
      return items.map((item) => item.toUpperCase());
    });
    const outcomes = await Promise.allSettled(['a', 'bad', 'c'].map((item) => commit.submit(item)));
    expect(outcomes).toEqual([
      { status: 'fulfilled', value: 'A' },
      { status: 'rejected', reason: new Error('constraint violated') },
      { status: 'fulfilled', value: 'C' },
    ]);
    expect(batches).toEqual([['a', 'bad', 'c'], ['a'], ['bad'], ['c']]);
  });
});
