#!/usr/bin/env node
// The closing lines of a CI run: the totals of every Jest run (each test-artifacts/*.json written with --json),
// then, loudly, every skipped suite with its reason and the number of skipped tests. A suite that cannot run
// here (no MongoDB, no EventStoreDB, no container runtime) says why in its skipped test's title
// ("skipped: ..."); a skip without such a title is listed as giving no reason. With --fail-on-skip (where every
// server is provided, as in the real-servers workflow) a skipped test fails the run.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const repo = resolve(new URL('..', import.meta.url).pathname);
const dir = join(repo, 'test-artifacts');
const runs = existsSync(dir)
  ? readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .map((f) => ({ file: f, report: JSON.parse(readFileSync(join(dir, f), 'utf8')) }))
      .filter(({ report }) => typeof report.numTotalTests === 'number' && Array.isArray(report.testResults))
  : [];

/** The text after "skipped:" in a title, without the ')' closing a "(skipped: ...)" around it. */
function reasonIn(title) {
  let reason = /skipped:\s*(.+)$/i.exec(title)?.[1];
  if (reason?.endsWith(')') && reason.split('(').length < reason.split(')').length) reason = reason.slice(0, -1);
  return reason;
}

let passed = 0;
let failed = 0;
let skipped = 0;
/** "file › suite" → { count, reasons } */
const suites = new Map();
for (const { report } of runs) {
  passed += report.numPassedTests;
  failed += report.numFailedTests;
  skipped += report.numPendingTests + (report.numTodoTests ?? 0);
  for (const file of report.testResults) {
    for (const test of file.assertionResults ?? []) {
      if (!['pending', 'skipped', 'todo', 'disabled'].includes(test.status)) continue;
      const key = `${relative(repo, file.name)} › ${test.ancestorTitles[0] ?? test.title}`;
      const suite = suites.get(key) ?? { count: 0, reasons: new Set() };
      suite.count++;
      const reason = [test.title, ...test.ancestorTitles].map(reasonIn).find(Boolean);
      if (reason) suite.reasons.add(reason);
      suites.set(key, suite);
    }
  }
}

console.log(`\n${runs.map((r) => r.file).join(', ') || 'no Jest reports'}: ${passed} passed, ${failed} failed, ${skipped} skipped`);
if (skipped > 0) {
  const bar = '!'.repeat(100);
  console.log(`\n${bar}\n!!! ${skipped} TESTS SKIPPED in ${suites.size} suites: these did not run on this machine`);
  for (const [suite, { count, reasons }] of [...suites].sort()) {
    console.log(`!!!   ${suite}: ${count} skipped — ${reasons.size ? [...reasons].join('; ') : 'no reason given in the test title'}`);
  }
  console.log(`!!! ${skipped} skipped in total\n${bar}`);
  if (process.argv.includes('--fail-on-skip')) {
    console.error('Skipped tests where every server is provided: failing (--fail-on-skip)');
    process.exit(1);
  }
}
if (runs.length === 0 && process.argv.includes('--fail-on-skip')) {
  console.error('No Jest report in test-artifacts/: nothing ran');
  process.exit(1);
}
