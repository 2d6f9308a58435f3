// A user's jest project as small as it gets: ESM test files run as they are (no transform), on Node.
// Run by test/storm/describe-storm-jest.test.ts with `node --experimental-vm-modules` (jest's ESM support).
export default {
  testEnvironment: 'node',
  testMatch: ['<rootDir>/*.jest.mjs'],
  transform: {},
  cache: false,
  watchman: false,
};
