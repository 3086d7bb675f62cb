// Imported first by a service's main.ts, before the rest of it loads. V8 doubles its young generation
// whenever more has survived its collections since it last grew than the generation holds, and does
// not shrink it while the process idles. At start-up nearly everything allocated survives (the
// modules, the routes, the clients), which took the API's to its largest, 2 x 16 MB, of which the
// requests' garbage needs a fraction: growth is off until the service serves (the API's, until it is
// busy), so that its size follows what the work leaves, not what start-up did.
// (docs/performance.md#memory has the figures.)
import { constants, type NodeGCPerformanceDetail, type PerformanceEntry, PerformanceObserver } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';

/** V8's own growth factor, given back once the service serves. */
const V8_GROWTH_FACTOR = 2;

setFlagsFromString('--semi-space-growth-factor=1');

/** Lets V8 grow the young generation again, as the work needs. */
export function letYoungGenerationGrow(): void {
  setFlagsFromString(`--semi-space-growth-factor=${V8_GROWTH_FACTOR}`);
}

/**
 * Minor collections' share of the time above which a small young generation costs more CPU than its
 * memory is worth: 5%, over two seconds. Lightly used (a sequential warm-up of lists and creates:
 * 5-20 ms a second), the API's young generation stays at its first size; under load (500 requests a
 * second: 80-200 ms a second) it grows within seconds.
 */
const UNDER_LOAD = { windowMs: 2_000, collectingMs: 100 };

/** Sums the minor collections' durations over a sliding window; says when the sum reaches the bound. */
export class MinorCollections {
  private readonly recent: { endsAt: number; durationMs: number }[] = [];
  private collectingMs = 0;

  /** Counts one collection (its start and duration, in ms); true once the window's total reaches the bound. */
  count(startTime: number, durationMs: number): boolean {
    const endsAt = startTime + durationMs;
    this.recent.push({ endsAt, durationMs });
    this.collectingMs += durationMs;
    while (this.recent[0]!.endsAt <= endsAt - UNDER_LOAD.windowMs) this.collectingMs -= this.recent.shift()!.durationMs;
    return this.collectingMs >= UNDER_LOAD.collectingMs;
  }
}

/** A `gc` entry carries what kind of collection it was in its `detail`, which Node's types leave out. */
const isMinorCollection = (entry: PerformanceEntry) =>
  (entry as PerformanceEntry & { detail?: NodeGCPerformanceDetail }).detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR;

/**
 * Lets V8 grow the young generation once the service is busy enough for its minor collections to
 * cost what `UNDER_LOAD` says; until then it keeps the size it had when the service started to
 * serve (about 10 MB less resident for an API replica that is idle or lightly used).
 */
export function letYoungGenerationGrowUnderLoad(): void {
  const collections = new MinorCollections();
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (!isMinorCollection(entry)) continue;
      if (collections.count(entry.startTime, entry.duration)) {
        observer.disconnect();
        letYoungGenerationGrow();
        return;
      }
    }
  });
  observer.observe({ entryTypes: ['gc'] });
}
