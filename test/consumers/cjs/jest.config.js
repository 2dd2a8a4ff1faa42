// Plain ts-jest (CommonJS, no --experimental-vm-modules). The sources import
// relative files with a `.js` suffix (valid for every TypeScript module
// setting); the mapper sends jest to the `.ts` file.
module.exports = {
  preset: 'ts-jest',
  testEnvironment: 'node',
  // Containers and sandboxes start on a shared CI machine: a safety net, not a speed check.
  testTimeout: 60_000,
  roots: ['<rootDir>/test'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
};
