import type { Config } from 'jest';

const config: Config = {
  testEnvironment: 'node',
  roots: ['<rootDir>/packages', '<rootDir>/services', '<rootDir>/test'],
  testMatch: ['**/test/**/*.test.ts'],
  moduleNameMapper: {
    '^(\\.{1,2}/.*)\\.js$': '$1',
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
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
  setupFilesAfterEnv: ['<rootDir>/test/database-per-file.ts'],
  // Stops a run that includes browser tests at once, with one line, when there is no Chromium.
  testSequencer: '<rootDir>/test/sequencer.ts',
  testTimeout: 30_000,
};

export default config;
