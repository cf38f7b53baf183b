/** Browser tests: Playwright (playwright-core) driving Debian's Chromium against the built app. */
module.exports = {
  displayName: 'browser',
  testEnvironment: 'node',
  roots: ['<rootDir>/frontend/e2e'],
  testMatch: ['**/*.e2e.ts'],
  testTimeout: 120000,
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/frontend/e2e/tsconfig.json' }] },
};
