import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
// Loaded only by processes of their own: loading it sets V8's flags for the whole process, which in
// a Jest worker would hold back the young generation of every test file after this one.
const MODULE = path.join(__dirname, '..', 'src', 'young-generation.ts');

/**
 * The largest young generation (V8's new space, in bytes) of a process of its own (the module sets V8
 * flags for the whole process) that loads the module, lets the young generation grow under load or
 * not, and for a second allocates `perTurn` objects a turn, half of them kept a while, as requests in
 * flight are: without pause when `perTurn` is large, a turn every 20 ms when it is small.
 */
async function largestYoungGeneration(perTurn: number, { underLoad }: { underLoad: boolean }): Promise<number> {
  const script = `
    const { getHeapSpaceStatistics } = require('node:v8');
    const { letYoungGenerationGrowUnderLoad } = require(${JSON.stringify(MODULE)});
    const size = () => getHeapSpaceStatistics().find((space) => space.space_name === 'new_space').space_size;
    if (${underLoad}) letYoungGenerationGrowUnderLoad();
    const kept = [];
    const deadline = Date.now() + 1000;
    let largest = size();
    (function turn() {
      for (let i = 0; i < ${perTurn}; i++) {
        kept.push({ i, text: 'x'.repeat(20) });
        if (kept.length > 2 * ${perTurn}) kept.splice(0, ${perTurn});
      }
      largest = Math.max(largest, size());
      if (Date.now() > deadline) return console.log(largest);
      setTimeout(turn, ${perTurn > 1_000 ? 0 : 20});
    })();`;
  const { stdout } = await run(process.execPath, ['-e', script]);
  return Number(stdout);
}

describe('the young generation', () => {
  it('grows once minor collections take 100 ms within two seconds, counting only those of the last two seconds', async () => {
    // [start, duration] in ms: 40 + 40, then 40 + 19 once the first has left the window, then 40 + 19 + 41.
    const collections = [
      [0, 40],
      [1_000, 40],
      [2_100, 19],
      [2_500, 41],
    ];
    const script = `
      const { MinorCollections } = require(${JSON.stringify(MODULE)});
      const collections = new MinorCollections();
      console.log(JSON.stringify(${JSON.stringify(collections)}.map(([start, duration]) => collections.count(start, duration))));`;
    const { stdout } = await run(process.execPath, ['-e', script]);
    expect(JSON.parse(stdout)).toEqual([false, false, false, true]);
  });

  it('grows as V8 sizes it in a process that allocates without pause, and no further than before in one that allocates a little now and then', async () => {
    const [busy, busyNeverAsked, light, lightNeverAsked] = await Promise.all([
      largestYoungGeneration(20_000, { underLoad: true }),
      largestYoungGeneration(20_000, { underLoad: false }),
      largestYoungGeneration(500, { underLoad: true }),
      largestYoungGeneration(500, { underLoad: false }),
    ]);
    expect(busy).toBeGreaterThan(2 * busyNeverAsked);
    expect(light).toBe(lightNeverAsked);
  });
});
