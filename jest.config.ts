import type { Config } from 'jest';

const config: Config = {
  testEnvironment: 'node',
  roots: ['<rootDir>/packages', '<rootDir>/services'],
  testMatch: ['**/test/**/*.test.ts'],
  moduleNameMapper: { '^(\.{1,2}/.*)\.js$': '$1' },
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2023' } }] },
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
  testTimeout: 30_000,
};

export default config;
