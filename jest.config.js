/** Unit, conformance and API tests of both workspaces. The browser tests have their own config. */

/** Tests read the shared domain package from its source, so they never need it built first. */
const domainSource = { '^@joy/domain$': '<rootDir>/packages/domain/src/index.ts' };

module.exports = {
  projects: [
    {
      displayName: 'domain',
      testEnvironment: 'node',
      roots: ['<rootDir>/packages/domain/src'],
      testMatch: ['**/*.spec.ts'],
      transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/packages/domain/tsconfig.spec.json' }] },
    },
    {
      displayName: 'backend',
      testEnvironment: 'node',
      // API and fault tests start the whole app; on a loaded 2-core CI machine that can take seconds.
      testTimeout: 30_000,
      roots: ['<rootDir>/backend/src'],
      testMatch: ['**/*.spec.ts'],
      // isolatedModules (transpile only; `tsc` type-checks) is set in backend/tsconfig.json.
      transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/backend/tsconfig.json' }] },
      moduleNameMapper: domainSource,
    },
    {
      displayName: 'frontend',
      testEnvironment: 'jsdom',
      roots: ['<rootDir>/frontend/src'],
      testMatch: ['**/*.test.ts', '**/*.test.tsx'],
      // isolatedModules is set in frontend/tsconfig.test.json (ts-jest's own option is deprecated).
      transform: { '^.+\\.tsx?$': ['ts-jest', { tsconfig: '<rootDir>/frontend/tsconfig.test.json' }] },
      // Load the CommonJS builds of antd, rc-components and react-router (jsdom defaults to the ESM "browser" ones).
      testEnvironmentOptions: { customExportConditions: ['node', 'require', 'default'] },
      setupFilesAfterEnv: ['<rootDir>/frontend/src/setupTests.ts'],
      moduleNameMapper: {
        '\\.css$': '<rootDir>/frontend/src/testing/styleStub.ts',
        // @ant-design/icons' CommonJS build requires an ES module file of @ant-design/colors.
        '^@ant-design/colors/es/(.*)$': '@ant-design/colors/lib/$1',
        ...domainSource,
      },
    },
  ],
};
