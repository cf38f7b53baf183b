/** Unit, conformance and API tests of both workspaces. The browser tests have their own config. */
const tsJest = (tsconfig) => ['ts-jest', { tsconfig, isolatedModules: true }];

module.exports = {
  projects: [
    {
      displayName: 'backend',
      testEnvironment: 'node',
      roots: ['<rootDir>/backend/src'],
      testMatch: ['**/*.spec.ts'],
      transform: { '^.+\\.ts$': tsJest('<rootDir>/backend/tsconfig.json') },
    },
    {
      displayName: 'frontend',
      testEnvironment: 'jsdom',
      roots: ['<rootDir>/frontend/src'],
      testMatch: ['**/*.test.ts', '**/*.test.tsx'],
      transform: { '^.+\\.tsx?$': tsJest('<rootDir>/frontend/tsconfig.test.json') },
      setupFilesAfterEnv: ['<rootDir>/frontend/src/setupTests.ts'],
      moduleNameMapper: { '\\.css$': '<rootDir>/frontend/src/testing/styleStub.ts' },
    },
  ],
};
