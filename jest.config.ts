import type { Config } from 'jest';

// ESM TypeScript under ts-jest: relative imports carry a `.js` suffix in the
// source (NodeNext), so map them back to the `.ts` files jest transforms.
const config: Config = {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }] },
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // Fixture consumer projects run against the packed tarball (scripts/consumer-check.sh);
  // the interop clients' fixture holds drivers and node_modules, not suites.
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/consumers/', '<rootDir>/test/interop/clients/'],
  setupFiles: ['<rootDir>/test/setup.ts'],
  testTimeout: 30000,
  // Process-heavy suites share two cores; keep the load predictable.
  maxWorkers: 2,
};

export default config;
