import type { Config } from 'jest';
import { unitProject } from './jest.config.ts';

/** `pnpm test:unit`: the pure-logic tests alone, with no database to migrate: the inner loop. */
const config: Config = { projects: [unitProject] };

export default config;
