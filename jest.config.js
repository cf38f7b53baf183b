/**
 * The Jest tiers of both workspaces (the browser tests have their own config, jest.browser.config.js):
 * - unit (`npm run test:unit`): pure code, no network, database, child process or temp file; seconds. The
 *   projects domain, backend-unit and frontend-unit. A backend spec joins it by being listed in BACKEND_UNIT;
 *   testing/no-io.ts makes a unit spec that tries I/O fail with a message saying so.
 * - int (`npm run test:int`): adapters against their real stores, the whole app over HTTP, React pages in jsdom:
 *   backend-int (every other backend spec) and frontend-int (the *.test.tsx files).
 */

/** Tests read the shared domain package from its source, so they never need it built first. */
const domainSource = { '^@joy/domain$': '<rootDir>/packages/domain/src/index.ts' };

/** Backend specs of pure code: deciders, projectors, request bodies through the validation pipe, analytics, rules, the error mapping, the in-memory stores. */
const BACKEND_UNIT = [
  '**/*.decider.spec.ts',
  '**/*.projector.spec.ts',
  '**/*.dto.spec.ts',
  '**/insights/analytics.spec.ts',
  '**/names/name-rule.spec.ts',
  '**/http/api-exception.filter.spec.ts',
  '**/http/edge.spec.ts',
  '**/http/start-gate.spec.ts',
  '**/read-models/in-memory-read-model-store.spec.ts',
  '**/read-models/versioned-read-model-store.spec.ts',
  '**/identity/profiles.spec.ts',
  '**/queue/in-process-queue.spec.ts',
  '**/reminders/push-endpoint.spec.ts',
];

const backend = {
  testEnvironment: 'node',
  roots: ['<rootDir>/backend/src'],
  // isolatedModules (transpile only; `tsc` type-checks) is set in backend/tsconfig.json.
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/backend/tsconfig.json' }] },
  moduleNameMapper: domainSource,
};

const frontend = {
  testEnvironment: 'jsdom',
  roots: ['<rootDir>/frontend/src'],
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
};

module.exports = {
  // API and fault tests start the whole app; on a loaded 2-core CI machine that can take seconds. (A global
  // option: Jest ignores testTimeout inside a project.)
  testTimeout: 30_000,
  // Every core (Jest's default leaves one to its parent, which only waits here): on the 2-core CI machine the
  // integration tier took 12 min in one worker and 4.6 min in two (11-28).
  maxWorkers: '100%',
  projects: [
    {
      displayName: 'domain',
      testEnvironment: 'node',
      roots: ['<rootDir>/packages/domain/src'],
      testMatch: ['**/*.spec.ts'],
      transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/packages/domain/tsconfig.spec.json' }] },
      setupFilesAfterEnv: ['<rootDir>/backend/src/testing/no-io.ts'],
    },
    { ...backend, displayName: 'backend-unit', testMatch: BACKEND_UNIT, setupFilesAfterEnv: ['<rootDir>/backend/src/testing/no-io.ts'] },
    {
      ...backend,
      displayName: 'backend-int',
      testMatch: ['**/*.spec.ts'],
      testPathIgnorePatterns: ['/node_modules/', ...BACKEND_UNIT.map((glob) => glob.replace('**/', '/').replace('*', '[^/]*').replace(/\./g, '\\.') + '$')],
    },
    { ...frontend, displayName: 'frontend-unit', testMatch: ['**/*.test.ts'] },
    { ...frontend, displayName: 'frontend-int', testMatch: ['**/*.test.tsx'] },
  ],
};
