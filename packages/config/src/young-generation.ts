// Imported first by a service's main.ts, before the rest of it loads. V8 doubles its young generation
// whenever more has survived its collections since it last grew than the generation holds, and does
// not shrink it while the process idles. At start-up nearly everything allocated survives (the
// modules, the routes, the clients), which took the API's to its largest, 2 x 16 MB, of which the
// requests' garbage needs a fraction: growth is off until the service serves, so that its size
// follows what the work leaves, not what start-up did. (docs/performance.md#memory has the figures.)
import { setFlagsFromString } from 'node:v8';

/** V8's own growth factor, given back once the service serves. */
const V8_GROWTH_FACTOR = 2;

setFlagsFromString('--semi-space-growth-factor=1');

/** Lets V8 grow the young generation again, as the work needs. */
export function letYoungGenerationGrow(): void {
  setFlagsFromString(`--semi-space-growth-factor=${V8_GROWTH_FACTOR}`);
}
