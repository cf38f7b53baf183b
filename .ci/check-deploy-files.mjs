#!/usr/bin/env node
// Checks the deployment files that cannot run here (no container engine), in a second or two:
// - docker-compose.yml through `docker-compose config` (the Debian package; it validates and interpolates without an
//   engine): with .env.example's blanks filled it must resolve, as it is (blanks empty) it must refuse, and every
//   service must pin a full image version (or be built here), restart unless stopped, and have a health check;
//   no secret may have a default, and every required variable must be in .env.example;
// - every workflow in .github/workflows: parsed as YAML and checked against the shape GitHub Actions expects (jobs
//   with runs-on, a timeout and steps that each `uses` or `run`; `needs` naming jobs that exist; actions and
//   service images pinned; `${{ }}` balanced), validated against GitHub's workflow schema (@action-validator/core),
//   and the repository paths its commands name must exist.

import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { parse } from 'yaml';

// GitHub's workflow schema (SchemaStore's), checked by action-validator (WebAssembly: nothing to download or build).
const { validateWorkflow } = createRequire(import.meta.url)('@action-validator/core');

const repo = resolve(new URL('..', import.meta.url).pathname);
const problems = [];
const problem = (file, message) => problems.push(`${file}: ${message}`);
const FULL_VERSION = /:(\d+\.\d+\.\d+)([-.][\w.-]+)?$/;

// ------------------------------------------------------------------------------------------------- compose
function checkCompose() {
  const file = 'docker-compose.yml';
  const text = readFileSync(join(repo, file), 'utf8');
  const example = readFileSync(join(repo, '.env.example'), 'utf8');
  const exampleVars = new Map(
    example
      .split('\n')
      .filter((l) => /^[A-Z][A-Z0-9_]*=/.test(l))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
  for (const m of text.matchAll(/\$\{([A-Z][A-Z0-9_]*)(:?[-?])([^}]*)\}/g)) {
    const [, name, op, value] = m;
    if (!exampleVars.has(name)) problem(file, `${name} is used but not in .env.example`);
    if (op.endsWith('-') && value !== '' && /SECRET|PASSWORD|TOKEN|KEY/.test(name)) problem(file, `${name} has a default (${value}): secrets have none`);
  }
  for (const [name, value] of exampleVars) {
    if (/SECRET|PASSWORD|TOKEN/.test(name) && value !== '') problem('.env.example', `${name} has a value: leave secrets blank, to be generated per install`);
  }

  const dir = mkdtempSync(join(tmpdir(), 'joy-compose-'));
  try {
    const required = [...text.matchAll(/\$\{([A-Z][A-Z0-9_]*):\?/g)].map((m) => m[1]);
    const blank = (k) => (k.endsWith('_URL') ? 'https://joy.example.test' : randomBytes(32).toString('hex'));
    const filled = [...exampleVars].map(([k, v]) => `${k}=${v === '' && required.includes(k) ? blank(k) : v}`);
    writeFileSync(join(dir, 'filled.env'), `${filled.join('\n')}\n`);
    let config;
    try {
      config = parse(execFileSync('docker-compose', ['--env-file', join(dir, 'filled.env'), 'config'], { cwd: repo, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }));
    } catch (err) {
      problem(file, `docker-compose config refused it with .env.example filled in: ${err.stderr || err.message}`);
      return;
    }
    try {
      execFileSync('docker-compose', ['--env-file', join(repo, '.env.example'), 'config'], { cwd: repo, stdio: 'pipe' });
      problem(file, 'docker-compose config accepted .env.example with its secrets blank: a required variable has a default');
    } catch (err) {
      if (!/Missing mandatory value/.test(String(err.stderr))) problem(file, `unexpected refusal with .env.example as it is: ${err.stderr || err.message}`);
    }
    for (const [name, service] of Object.entries(config.services ?? {})) {
      if (!service.build && !FULL_VERSION.test(service.image ?? '')) problem(file, `service ${name}: image ${service.image} is not pinned to a full version (x.y.z)`);
      if (service.restart !== 'unless-stopped') problem(file, `service ${name}: restart is ${service.restart ?? 'not set'}, not unless-stopped`);
      if (!service.healthcheck?.test || service.healthcheck.disable) problem(file, `service ${name}: no health check`);
      if (JSON.stringify(service.command ?? '').includes('start-dev')) problem(file, `service ${name}: runs a development mode (start-dev)`);
      for (const port of service.ports ?? []) {
        const host = typeof port === 'object' ? port.host_ip : String(port).split(':').length === 3 ? String(port).split(':')[0] : undefined;
        if (host !== '127.0.0.1') problem(file, `service ${name}: port ${JSON.stringify(port)} is published on every interface: publish it on 127.0.0.1 for the proxy in front`);
      }
      if (service.command !== undefined && !Array.isArray(service.command)) problem(file, `service ${name}: command in shell form (SIGTERM would reach /bin/sh, not the process)`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// ------------------------------------------------------------------------------------------------ workflows
function checkWorkflow(file) {
  const text = readFileSync(join(repo, file), 'utf8');
  // Every expression closes on its line (`{{ }}` without `$`, a Go template for docker, is not one).
  for (const [i, line] of text.split('\n').entries()) {
    if (line.replace(/\$\{\{[^}]*\}\}/g, '').includes('${{')) problem(file, `line ${i + 1}: an unclosed \${{ expression`);
  }
  let doc;
  try {
    doc = parse(text);
  } catch (err) {
    problem(file, `not YAML: ${err.message}`);
    return;
  }
  for (const error of validateWorkflow(text).errors) {
    const nested = (error.states ?? []).flatMap((state) => state.errors.map((e) => `${e.title} ${e.path ?? ''}`.trim()));
    problem(file, `GitHub's workflow schema: ${error.title} at ${error.path ?? error.location?.line ?? '?'}${error.detail ? ` (${error.detail})` : ''}${nested.length ? `: ${nested.slice(0, 3).join('; ')}` : ''}`);
  }
  if (typeof doc?.name !== 'string') problem(file, 'no name');
  if (!doc?.on) problem(file, 'no `on` (triggers)');
  const jobs = doc?.jobs ?? {};
  if (Object.keys(jobs).length === 0) problem(file, 'no jobs');
  for (const [id, job] of Object.entries(jobs)) {
    const where = `job ${id}`;
    if (!/^[A-Za-z_][\w-]*$/.test(id)) problem(file, `${where}: not a valid job id`);
    if (!job['runs-on']) problem(file, `${where}: no runs-on`);
    if (typeof job['timeout-minutes'] !== 'number') problem(file, `${where}: no timeout-minutes (a hung job would run for 6 hours)`);
    for (const need of [job.needs ?? []].flat()) if (!jobs[need]) problem(file, `${where}: needs ${need}, which is not a job`);
    for (const m of JSON.stringify(job).matchAll(/needs\.([\w-]+)\.outputs\.([\w-]+)/g)) {
      if (![job.needs ?? []].flat().includes(m[1])) problem(file, `${where}: reads needs.${m[1]} without needing it`);
      else if (!jobs[m[1]]?.outputs?.[m[2]]) problem(file, `${where}: job ${m[1]} has no output ${m[2]}`);
    }
    if (!Array.isArray(job.steps) || job.steps.length === 0) problem(file, `${where}: no steps`);
    for (const [i, step] of (job.steps ?? []).entries()) {
      if (Boolean(step.uses) === Boolean(step.run)) problem(file, `${where} step ${i + 1}: needs exactly one of uses and run`);
      if (step.uses && !/^[\w.-]+\/[\w./-]+@[\w.-]+$/.test(step.uses)) problem(file, `${where} step ${i + 1}: action ${step.uses} is not pinned (owner/repo@version)`);
      // Repository paths a command names (backend/src/..., .ci/...) must exist.
      for (const m of String(step.run ?? '').matchAll(/(?:^|\s)((?:backend|frontend|packages|\.ci)\/[\w./-]+)/g)) {
        if (!m[1].includes('*') && !existsSync(join(repo, m[1]))) problem(file, `${where} step ${i + 1}: ${m[1]} does not exist`);
      }
    }
    for (const [name, service] of Object.entries(job.services ?? {})) {
      if (!FULL_VERSION.test(service.image ?? '')) problem(file, `${where}: service ${name} image ${service.image} is not pinned to a full version`);
      if (!/--health-cmd/.test(service.options ?? '')) problem(file, `${where}: service ${name} has no --health-cmd (steps would start before it answers)`);
    }
    if (job.services) {
      const env = { ...doc.env, ...job.env };
      for (const name of ['MONGO_URL', 'EVENTSTORE_URL', 'REDIS_URL']) if (!env[name]) problem(file, `${where}: has service containers but no ${name}`);
    }
  }
}

checkCompose();
const workflows = existsSync(join(repo, '.github/workflows'))
  ? readdirSync(join(repo, '.github/workflows')).filter((f) => /\.ya?ml$/.test(f)).map((f) => `.github/workflows/${f}`)
  : [];
if (workflows.length === 0) problem('.github/workflows', 'no workflow');
for (const workflow of workflows) checkWorkflow(workflow);

if (problems.length > 0) {
  console.error(`deploy files: ${problems.length} problems\n${problems.map((p) => `  ${p}`).join('\n')}`);
  process.exit(1);
}
console.log(`deploy files: docker-compose.yml (docker-compose config) and ${workflows.join(', ')} are valid`);
