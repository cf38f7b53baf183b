import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * The import rules of .dependency-cruiser.cjs over the whole tree (backend, frontend, @joy/domain): imports point
 * down only (controllers → features → ports ← adapters; the composition root alone knows adapters; the domain
 * package imports nothing) and never go in a circle. A failure names each offending import and the rule.
 */
const root = resolve(__dirname, '../..');

interface CruiseResult {
  summary: { violations: { rule: { name: string }; from: string; to: string; cycle?: { name: string }[] }[]; totalCruised: number };
  modules: { source: string; dependencies: { resolved: string }[] }[];
}

function cruise(): CruiseResult {
  const out = execFileSync(
    process.execPath,
    [join(root, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs'), '--config', '.dependency-cruiser.cjs', '--output-type', 'json', 'backend/src', 'frontend/src', 'packages/domain/src'],
    { cwd: root, maxBuffer: 256 * 1024 * 1024, encoding: 'utf8' },
  );
  return JSON.parse(out) as CruiseResult;
}

describe('the import rules', () => {
  let result: CruiseResult;
  beforeAll(() => {
    result = cruise();
  }, 120_000);

  it('see the whole tree, resolving @joy/domain and the ports', () => {
    expect(result.summary.totalCruised).toBeGreaterThan(300);
    const deps = (file: string) => result.modules.find((m) => m.source === file)?.dependencies.map((d) => d.resolved) ?? [];
    expect(deps('backend/src/ratings/ratings.handlers.ts')).toEqual(
      expect.arrayContaining(['packages/domain/src/index.ts', 'backend/src/projections/read-your-writes.ts', 'backend/src/event-store/event-store.port.ts']),
    );
    expect(deps('frontend/src/groups/logic.ts')).toContain('packages/domain/src/index.ts');
  });

  it('are all kept: no import points up, none goes in a circle', () => {
    const violations = result.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.cycle ? v.cycle.map((c) => c.name).join(' → ') : v.to}`);
    expect(violations).toEqual([]);
  });
});

describe('the size of a source file', () => {
  it('is at most 400 lines (tests, test helpers and benchmarks aside): a longer one does more than one job', () => {
    const files = execFileSync('git', ['ls-files', 'backend/src', 'frontend/src', 'packages/domain/src'], { cwd: root, encoding: 'utf8' })
      .split('\n')
      .filter((f) => /\.tsx?$/.test(f) && !/\.(spec|test|e2e)\.tsx?$|\.conformance\.ts$|\/(bench|testing)\//.test(f));
    expect(files.length).toBeGreaterThan(200);
    const long = files.map((f) => ({ f, lines: readFileSync(join(root, f), 'utf8').split('\n').length - 1 })).filter((x) => x.lines > 400);
    expect(long).toEqual([]);
  });
});
