/**
 * Import rules: the layers of docs/architecture.md ("Layers and folders"), checked by
 * backend/src/architecture.spec.ts (int tier). Arrows point down only:
 *   pages and controllers → features → ports → (adapters implement ports); the composition root alone knows
 *   concrete adapters; @joy/domain is below everything and imports nothing.
 */
const FEATURES = '^backend/src/(account|billing|care|groups|identity|insights|ratings|settings|names|reminders)/';
const ADAPTERS =
  '^backend/src/(event-store/(sqlite-event-store|eventstoredb-[^/]*|standin/)|read-models/(mongo-[^/]*|in-memory-read-model-store|versioned-read-model-store)|queue/(bullmq-queue|in-process-queue|redis-lease)|identity/(sqlite-session-store|key-stores|mongo-key-store)|billing/(stripe|sandbox|unconfigured)\\.provider)';
const PORTS =
  '^backend/src/(event-store/event-store\\.port|read-models/read-model-store\\.port|queue/queue\\.port|projections/read-your-writes|identity/key-store|identity/session-store\\.port|billing/billing\\.provider)\\.ts$';
/** Pure domain code that ports and adapters may use too: the deciders, the name rule, the personal-data cipher. */
const DOMAIN = '(\\.decider\\.ts$|^backend/src/names/name-rule\\.ts$|^backend/src/identity/personal-data\\.ts$)';
const ROOT = '^backend/src/(infrastructure|app\\.module|app|main|worker)\\.ts$';
/**
 * Programs of their own, each its own composition root: the ops commands, the benchmark, and the personal-data
 * migration the root runs on the concrete stores at start.
 */
const PROGRAMS = '^backend/src/(ops/|bench/|account/personal-data-migration\\.ts$)';
const TESTS = '(\\.spec\\.tsx?|\\.test\\.tsx?|\\.conformance\\.ts|\\.e2e\\.ts)$|^backend/src/testing/|^frontend/src/testing/|^frontend/e2e/';

module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', comment: 'Imports never go in a circle.', from: {}, to: { circular: true } },
    {
      name: 'domain-is-pure',
      severity: 'error',
      comment: '@joy/domain is shared by backend and frontend: it imports nothing but itself.',
      from: { path: '^packages/domain/src/' },
      to: { pathNot: '^packages/domain/src/' },
    },
    { name: 'frontend-not-backend', severity: 'error', from: { path: '^frontend/' }, to: { path: '^backend/' } },
    { name: 'backend-not-frontend', severity: 'error', from: { path: '^backend/' }, to: { path: '^frontend/' } },
    {
      name: 'features-use-ports-not-adapters',
      severity: 'error',
      comment: 'A feature depends on ports (interfaces); which adapter serves them is for the composition root.',
      from: { path: FEATURES, pathNot: [TESTS, ADAPTERS, PROGRAMS] },
      to: { path: ADAPTERS },
    },
    {
      name: 'ports-point-down',
      severity: 'error',
      comment: 'A port knows neither the features that use it nor the adapters that implement it.',
      from: { path: PORTS },
      to: { path: [FEATURES, ADAPTERS, ROOT, '^backend/src/http/'], pathNot: [PORTS, DOMAIN] },
    },
    {
      name: 'adapters-know-no-features',
      severity: 'error',
      comment: 'An adapter implements a port; it never reaches up into features, the HTTP edge or the root.',
      from: { path: ADAPTERS, pathNot: TESTS },
      to: { path: [FEATURES, '^backend/src/http/', ROOT, PROGRAMS], pathNot: [PORTS, ADAPTERS, DOMAIN] },
    },
    {
      name: 'only-the-root-is-the-root',
      severity: 'error',
      comment: 'Nothing but the composition root itself, the programs and tests imports it.',
      from: { pathNot: [ROOT, PROGRAMS, TESTS] },
      to: { path: ROOT },
    },
    {
      name: 'controllers-are-the-top',
      severity: 'error',
      comment: 'Controllers are entry points: only their Nest module mentions them.',
      from: { pathNot: ['\\.module\\.ts$', TESTS] },
      to: { path: '\\.controller\\.ts$' },
    },
    {
      name: 'no-tests-in-production',
      severity: 'error',
      from: { pathNot: TESTS },
      to: { path: TESTS },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(dist|node_modules)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.depcruise.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};
