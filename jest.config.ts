import type { Config } from 'jest';

type Project = Exclude<NonNullable<Config['projects']>[number], string>;

/** What every project shares: how TypeScript is run. */
const typescript: Project = {
  testEnvironment: 'node',
  moduleNameMapper: {
    '^(\\.{1,2}/.*)\\.js$': '$1',
    // tsconfig.json's `paths`: the shared test support, from the tests of every package.
    '^@test-support/(.*?)(?:\\.js)?$': '<rootDir>/test/support/$1',
    // ESM-only, with only an "import" export condition, which Jest's CommonJS resolver does not try.
    '^@octokit/webhooks-methods$': '<rootDir>/node_modules/@octokit/webhooks-methods/dist-node/index.js',
  },
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2023' } }],
    // The dashboard's server-rendered pages (preact's automatic JSX runtime, as tsconfig.json says).
    '^.+\\.tsx$': [
      '@swc/jest',
      { jsc: { target: 'es2023', parser: { syntax: 'typescript', tsx: true }, transform: { react: { runtime: 'automatic', importSource: 'preact' } } } },
    ],
  },
};

/** The tests of pure logic, named `*.unit.test.ts`: no Postgres, no Redis, no database of their own. */
export const unitProject: Project = {
  ...typescript,
  displayName: 'unit',
  roots: ['<rootDir>/packages', '<rootDir>/services', '<rootDir>/test'],
  testMatch: ['**/test/**/*.unit.test.ts'],
};

/** The tests against the services: a database of its own per test file, and the worker's shared validators. */
const project: Project = { ...typescript, testEnvironment: '<rootDir>/test/environment.ts', setupFilesAfterEnv: ['<rootDir>/test/database-per-file.ts'] };

const config: Config = {
  projects: [
    {
      ...project,
      displayName: 'suite',
      roots: ['<rootDir>/packages', '<rootDir>/services', '<rootDir>/test'],
      testMatch: ['**/test/**/*.test.ts'],
      testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/topologies/', '\\.unit\\.test\\.ts$'],
    },
    unitProject,
    // The services on Redis Sentinel and Redis Cluster, through PgBouncer and across a Postgres
    // failover, each file starting its own servers from Debian's packages: heavier, so kept apart,
    // and still part of `pnpm test`.
    { ...project, displayName: 'topologies', roots: ['<rootDir>/test/topologies'], testMatch: ['**/*.test.ts'] },
  ],
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
  // Stops a run that includes browser tests at once, with one line, when there is no Chromium.
  testSequencer: '<rootDir>/test/sequencer.ts',
  testTimeout: 30_000,
  // Two files at a time: each has its own database, Redis prefix and ports (docs/testing.md), and
  // the heavy files go first so the run ends evenly. Three finish no sooner on two cores: the run is
  // CPU-bound (96-97% busy at three), and the real-time bounds some tests hold (a takeover within
  // 10 s, a 3 s drain) then fail on a starved process.
  maxWorkers: 2,
  // A worker that ran half the suite holds a heap of a gigabyte or two, mostly garbage not yet
  // collected, and Node takes longer than Jest's default 500 ms to tear that down after the worker's
  // last JavaScript has run: Jest then kills it and warns of a leak that is not there.
  workerGracefulExitTimeout: 3_000,
};

export default config;
