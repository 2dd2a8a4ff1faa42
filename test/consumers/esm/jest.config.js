// ts-jest in ESM mode (run with NODE_OPTIONS=--experimental-vm-modules).
export default {
  preset: 'ts-jest/presets/default-esm',
  testEnvironment: 'node',
  // Containers and sandboxes start on a shared CI machine: a safety net, not a speed check.
  testTimeout: 60_000,
  roots: ['<rootDir>/test'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
};
