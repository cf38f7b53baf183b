#!/usr/bin/env node
// The image smoke test, without a container engine (.ci/run, after the build).
//
// It reads the Dockerfile's final stage and carries it out on this machine: a temporary root gets exactly the
// files its COPY lines name (from the built tree for the build stage, and for a stage that runs
// `npm ci --omit=dev --workspace <w>` from the production dependency tree npm itself computes, `npm ls --omit=dev`),
// the VOLUME directory owned by the unprivileged user, nothing else. It then runs the CMD there as that user
// (uid 65534) with only the image's ENV and what a deploy sets (PORT, PUBLIC_URL, SESSION_SECRET), waits for the
// HEALTHCHECK command to pass, creates an account on the built-in sign-in, writes a rating, stops the process with SIGTERM (it must exit 0), starts
// it again, and reads the rating back with the same session. It fails when a runtime dependency is not carried,
// when anything is written outside the volume, or when the worker entry point cannot load its modules.
//
//   node .ci/image-smoke.mjs [--keep]     (--keep leaves the temporary root for a look)

import { spawn, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync, chownSync, copyFileSync, existsSync, linkSync, lstatSync, mkdirSync, mkdtempSync, readdirSync,
  readFileSync, readlinkSync, rmSync, symlinkSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, posix, relative, resolve } from 'node:path';

const repo = resolve(dirname(new URL(import.meta.url).pathname), '..');
const require = createRequire(import.meta.url);
const UNPRIVILEGED = 65534; // nobody: the stand-in for the image's USER (no such account needs to exist here)
const keep = process.argv.includes('--keep');
const started = Date.now();

class SmokeFailure extends Error {}
const fail = (message) => {
  throw new SmokeFailure(message);
};
const step = (message) => console.log(`image smoke: ${message}`);

// ---------------------------------------------------------------------------------------------------------------
// The Dockerfile, as instructions grouped in stages.

/** Instructions of a Dockerfile: comments dropped, continuation lines joined. */
export function parseDockerfile(text) {
  const instructions = [];
  let current = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!current && (line === '' || line.startsWith('#'))) continue;
    if (current && line.startsWith('#')) continue;
    if (line.endsWith('\\')) {
      current += `${line.slice(0, -1)} `;
      continue;
    }
    current += line;
    const match = /^(\w+)\s+([\s\S]*)$/.exec(current.trim());
    if (match) instructions.push({ op: match[1].toUpperCase(), args: match[2].trim() });
    current = '';
  }
  const stages = [];
  for (const ins of instructions) {
    if (ins.op === 'FROM') {
      const m = /^(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?$/i.exec(ins.args);
      if (!m) fail(`Dockerfile: cannot read FROM ${ins.args}`);
      stages.push({ base: m[1], name: m[2] ?? String(stages.length), instructions: [] });
    } else if (stages.length === 0) {
      if (ins.op !== 'ARG') fail(`Dockerfile: ${ins.op} before the first FROM`);
    } else {
      stages.at(-1).instructions.push(ins);
    }
  }
  if (stages.length === 0) fail('Dockerfile: no FROM');
  return stages;
}

/** An exec-form argument list (JSON array), or null for the shell form. */
function execForm(args) {
  if (!args.startsWith('[')) return null;
  const list = JSON.parse(args);
  if (!Array.isArray(list) || list.length === 0 || list.some((a) => typeof a !== 'string')) return null;
  return list;
}

/** `ENV A=1 B="two"` or the legacy `ENV A 1`. */
function parseEnv(args) {
  const pairs = {};
  if (!args.includes('=') || /^\S+\s+[^=]*$/.test(args)) {
    const [key, ...rest] = args.split(/\s+/);
    pairs[key] = rest.join(' ');
    return pairs;
  }
  for (const m of args.matchAll(/(\w+)=("(?:[^"\\]|\\.)*"|\S*)/g)) {
    pairs[m[1]] = m[2].startsWith('"') ? JSON.parse(m[2]) : m[2];
  }
  return pairs;
}

/** The WORKDIR in effect at the end of a stage (inherited from the stage it is built on). */
function workdirOf(stages, stage) {
  const own = stage.instructions.filter((i) => i.op === 'WORKDIR').at(-1)?.args;
  if (own) return own;
  const parent = stages.find((s) => s.name === stage.base);
  return parent ? workdirOf(stages, parent) : '/';
}

/** The build-context paths a stage (and the stages it is built on) copies in, as written (`COPY a b/ dest`). */
function copiesOf(stages, stage) {
  const parent = stages.find((s) => s.name === stage.base);
  const own = stage.instructions
    .filter((i) => i.op === 'COPY' && !/--from=/.test(i.args))
    // The sources: every word but the flags and the destination (`COPY package.json package-lock.json ./`).
    .flatMap((i) => i.args.split(/\s+/).filter((w) => !w.startsWith('--')).slice(0, -1))
    .map((src) => (src === '.' ? '.' : src.replace(/^\.\//, '')));
  return [...(parent ? copiesOf(stages, parent) : []), ...own];
}

/** Every RUN of a stage and of the stages it is built on. */
function runsOf(stages, stage) {
  const parent = stages.find((s) => s.name === stage.base);
  return [...(parent ? runsOf(stages, parent) : []), ...stage.instructions.filter((i) => i.op === 'RUN').map((i) => i.args)];
}

// ---------------------------------------------------------------------------------------------------------------
// Files: hard links into the temporary root (copies across file systems), symbolic links kept as they are.

function linkTree(src, dest, skip = () => false) {
  const stat = lstatSync(src);
  if (stat.isSymbolicLink()) {
    mkdirSync(dirname(dest), { recursive: true });
    symlinkSync(readlinkSync(src), dest);
  } else if (stat.isDirectory()) {
    mkdirSync(dest, { recursive: true });
    for (const entry of readdirSync(src)) if (!skip(entry)) linkTree(join(src, entry), join(dest, entry));
  } else {
    mkdirSync(dirname(dest), { recursive: true });
    rmSync(dest, { force: true }); // a later COPY replaces a file, as in the image
    try {
      linkSync(src, dest);
    } catch (err) {
      if (err.code !== 'EXDEV') throw err;
      copyFileSync(src, dest);
    }
  }
}

/** Every path under a directory (relative), to see what a run wrote. */
function inventory(dir, base = dir, out = new Set()) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    out.add(relative(base, path));
    if (entry.isDirectory()) inventory(path, base, out);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// What each build stage holds, on this machine.

/**
 * The directory standing for a stage's WORKDIR: the built tree for a stage that builds, or, for a stage that
 * installs production dependencies (`npm ci --omit=dev [--workspace w]`), the production tree npm computes from
 * the installed one, linked into a directory of its own (with the directories its RUN creates with `mkdir -p`).
 */
function materializeStage(stages, stage, scratch) {
  const runs = runsOf(stages, stage);
  const install = runs.find((r) => /\bnpm ci\b/.test(r) && /--omit[= ]dev/.test(r));
  if (!install) return repo;
  // Without a workspace's package.json npm ci installs none of that workspace's dependencies (and links a
  // directory that has no manifest): every one must be copied in before it runs.
  const copied = copiesOf(stages, stage);
  const allWorkspaces = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')).workspaces ?? [];
  for (const manifest of ['package.json', 'package-lock.json', ...allWorkspaces.map((w) => posix.join(w, 'package.json'))]) {
    if (!copied.some((c) => c === manifest || manifest.startsWith(`${c.replace(/\/$/, '')}/`) || c === '.')) {
      fail(`stage ${stage.name} runs npm ci without ${manifest}: COPY it in before, or that workspace's dependencies are not installed`);
    }
  }
  const t0 = Date.now();
  const dir = join(scratch, `stage-${stage.name}`);
  mkdirSync(dir, { recursive: true });
  const workspaces = [...install.matchAll(/(?:--workspace|-w)[= ](\S+)/g)].map((m) => m[1]);
  const args = ['ls', '--omit=dev', '--all', '--parseable', ...workspaces.flatMap((w) => ['--workspace', w])];
  let out;
  try {
    out = execFileSync('npm', args, { cwd: repo, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    // npm ls exits 1 on a problem in the tree (missing, invalid): the install would not match the lock either.
    fail(`npm ${args.join(' ')} reports a broken production tree:\n${err.stderr || err.message}`);
  }
  const paths = [...new Set(out.split('\n').filter(Boolean))].map((p) => relative(repo, p)).filter((p) => p.includes('node_modules'));
  for (const path of paths) linkTree(join(repo, path), join(dir, path), (entry) => entry === 'node_modules');
  for (const file of ['package.json', 'package-lock.json']) linkTree(join(repo, file), join(dir, file));
  for (const run of runs) {
    for (const m of run.matchAll(/mkdir -p ((?:[^&;|]+))/g)) {
      for (const p of m[1].trim().split(/\s+/)) mkdirSync(join(dir, p), { recursive: true });
    }
  }
  step(`stage ${stage.name}: ${paths.length} production packages (npm ${args.slice(1).join(' ')}), linked in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return dir;
}

// ---------------------------------------------------------------------------------------------------------------

/** Resolves to null after `ms` without keeping the process alive. */
const timeout = (ms) => new Promise((res) => setTimeout(() => res(null), ms).unref());

const freePort = () =>
  new Promise((res, rej) => {
    const server = createServer();
    server.once('error', rej);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => res(port));
    });
  });

function startProcess(argv, { cwd, env, log }) {
  const asRoot = process.getuid?.() === 0;
  const [command, args] = asRoot
    ? ['setpriv', [`--reuid=${UNPRIVILEGED}`, `--regid=${UNPRIVILEGED}`, '--clear-groups', '--', ...argv]]
    : [argv[0], argv.slice(1)];
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.output = '';
  const collect = (chunk) => {
    child.output += chunk;
    if (log) process.stdout.write(chunk.toString().replace(/^/gm, '    | '));
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  child.exited = new Promise((res) => child.once('exit', (code, signal) => res({ code, signal })));
  return child;
}

async function waitHealthy(child, healthcheck, ctx, what) {
  const deadline = Date.now() + 60_000;
  let last = '';
  while (Date.now() < deadline) {
    const exit = await Promise.race([child.exited, timeout(300)]);
    if (exit) fail(`${what} exited (code ${exit.code}, signal ${exit.signal}) before it was healthy:\n${child.output}`);
    const probe = startProcess(healthcheck, ctx);
    const { code } = await probe.exited;
    if (code === 0) return;
    last = probe.output.trim();
  }
  fail(`${what} not healthy after 60 s; the HEALTHCHECK says: ${last}\n${child.output}`);
}

async function stop(child, what) {
  child.kill('SIGTERM');
  const exit = await Promise.race([child.exited, timeout(15_000)]);
  if (!exit) {
    child.kill('SIGKILL');
    fail(`${what} did not stop within 15 s of SIGTERM`);
  }
  if (exit.code !== 0) fail(`${what} exited with code ${exit.code} (signal ${exit.signal}) on SIGTERM, not 0:\n${child.output}`);
}

async function main() {
  const stages = parseDockerfile(readFileSync(join(repo, 'Dockerfile'), 'utf8'));
  const final = stages.at(-1);
  const names = new Set(stages.map((s) => s.name));
  if (names.has(final.base)) fail(`the final stage is built FROM ${final.base}, another stage: it would carry that stage's tools`);
  const all = (op) => final.instructions.filter((i) => i.op === op);
  for (const run of all('RUN')) {
    if (/apt-get install|apk add|npm (ci|install)|\bg\+\+|\bmake\b|python3/.test(run.args)) {
      fail(`the final stage installs or builds (${run.args}): dependencies come built from an earlier stage`);
    }
  }
  const user = all('USER').at(-1)?.args;
  if (!user || /^(root|0)(:|$)/.test(user)) fail('the final stage runs as root: set USER to an unprivileged user');
  const cmd = execForm(all('CMD').at(-1)?.args ?? '');
  if (!cmd) fail('CMD must be in exec form (a JSON array): in shell form SIGTERM goes to /bin/sh, not to Node');
  const healthArgs = all('HEALTHCHECK').at(-1)?.args ?? '';
  const healthcheck = execForm(healthArgs.replace(/^(--\S+\s+)*CMD\s+/, ''));
  if (!healthcheck) fail('the final stage needs a HEALTHCHECK in exec form (HEALTHCHECK ... CMD ["node", ...])');
  const workdir = workdirOf(stages, final);
  const env = Object.assign({}, ...all('ENV').map((i) => parseEnv(i.args)));
  const volumes = all('VOLUME').flatMap((i) => execForm(i.args) ?? i.args.split(/\s+/));
  if (!env.DATA_DIR) fail('the final stage sets no DATA_DIR: the app would write into its WORKDIR');
  if (!volumes.includes(env.DATA_DIR)) fail(`DATA_DIR=${env.DATA_DIR} is not a VOLUME: its data would be lost with the container`);
  const owner = user.split(':')[0];
  const chowned = all('RUN').some((r) => new RegExp(`chown\\s+(-\\S+\\s+)*${owner}(:\\S+)?\\s+(\\S+\\s+)*${env.DATA_DIR}(\\s|$)`).test(r.args));
  if (!chowned) fail(`VOLUME ${env.DATA_DIR} is not chowned to USER ${owner} before it is declared: a fresh volume would be root's`);

  // The temporary root: the COPY lines, in order, and the volume.
  const scratch = mkdtempSync(join(tmpdir(), 'joy-image-'));
  chmodSync(scratch, 0o755);
  const root = join(scratch, 'root');
  const inRoot = (p) => join(root, p);
  try {
    const stageDirs = new Map();
    for (const copy of all('COPY')) {
      const words = copy.args.split(/\s+/);
      const flags = words.filter((w) => w.startsWith('--'));
      const [dest, ...sourcesReversed] = words.filter((w) => !w.startsWith('--')).reverse();
      const from = flags.find((f) => f.startsWith('--from='))?.slice(7);
      let base = repo;
      let stageWorkdir = '/';
      if (from) {
        const stage = stages.find((s) => s.name === from);
        if (!stage) fail(`COPY --from=${from}: no such stage (images are not fetched here)`);
        if (!stageDirs.has(from)) stageDirs.set(from, materializeStage(stages, stage, scratch));
        base = stageDirs.get(from);
        stageWorkdir = workdirOf(stages, stage);
      }
      const target = posix.isAbsolute(dest) ? dest : posix.join(workdir, dest);
      for (const source of sourcesReversed.reverse()) {
        const rel = from ? posix.relative(stageWorkdir, posix.resolve(stageWorkdir, source)) : source;
        if (rel.startsWith('..')) fail(`COPY ${source}: outside the stage's WORKDIR ${stageWorkdir}, which this test does not model`);
        const src = join(base, rel);
        if (!existsSync(src)) fail(`COPY ${copy.args}: ${rel} does not exist in the ${from ? `stage ${from}` : 'build context'} (looked in ${src})`);
        // As Docker does: a directory's contents go into the destination; a file into it when it ends with '/'.
        const intoDir = dest.endsWith('/') || sourcesReversed.length > 1;
        if (lstatSync(src).isDirectory()) linkTree(src, inRoot(target));
        else linkTree(src, inRoot(intoDir ? posix.join(target, posix.basename(rel)) : target));
      }
    }
    for (const volume of volumes) {
      mkdirSync(inRoot(volume), { recursive: true });
      if (process.getuid?.() === 0) chownSync(inRoot(volume), UNPRIVILEGED, UNPRIVILEGED);
    }
    for (let dir = inRoot(workdir); dir.startsWith(root); dir = dirname(dir)) chmodSync(dir, 0o755);
    chmodSync(root, 0o755);
    const before = inventory(root);
    step(`assembled ${before.size} paths in ${root} from ${all('COPY').length} COPY lines`);

    // Every dependency the backend declares must be where Node looks for it from backend/dist.
    const backendPkg = JSON.parse(readFileSync(join(repo, 'backend', 'package.json'), 'utf8'));
    const missing = Object.keys(backendPkg.dependencies ?? {}).filter(
      (dep) => !['backend/node_modules', 'node_modules'].some((nm) => existsSync(inRoot(posix.join(workdir, nm, dep, 'package.json')))),
    );
    if (missing.length > 0) fail(`the image does not carry these dependencies of backend/package.json: ${missing.join(', ')}`);

    // Only the image's environment (paths inside the image moved into the root), plus what a deploy sets.
    const port = await freePort();
    const imageEnv = Object.fromEntries(
      Object.entries(env).map(([k, v]) => [k, isAbsolute(v) && volumes.some((vol) => v === vol || v.startsWith(`${vol}/`)) ? inRoot(v) : v]),
    );
    const runEnv = {
      PATH: `${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
      ...imageEnv,
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      SESSION_SECRET: randomBytes(32).toString('hex'),
    };
    const ctx = { cwd: inRoot(workdir), env: runEnv };
    const baseUrl = runEnv.PUBLIC_URL;
    // A person signs up with the built-in accounts, as on a real deploy (no development sign-in is opted into).
    const { signUp: signUpAt } = require(join(repo, 'backend/dist/identity/dev-sign-in-client.js'));
    const signUp = () => signUpAt(baseUrl, { firstName: 'Smoke', email: 'smoke@example.com', password: randomBytes(12).toString('base64url') });

    step(`starting ${JSON.stringify(cmd)} as uid ${process.getuid?.() === 0 ? UNPRIVILEGED : process.getuid?.()} in ${ctx.cwd}`);
    let app = startProcess(cmd, { ...ctx, log: false });
    await waitHealthy(app, healthcheck, ctx, 'the api');
    const cookie = await signUp();
    const rating = { relationships: 4, health: 3, purpose: 5, growth: 2, joy: 4 };
    const posted = await fetch(`${baseUrl}/api/joy-ratings`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json' },
      body: JSON.stringify(rating),
    });
    const written = await posted.json();
    if (posted.status !== 201) fail(`POST /api/joy-ratings answered ${posted.status}: ${JSON.stringify(written)}`);
    step(`rating ${written.id} written (overall ${written.overallScore}); restarting`);
    await stop(app, 'the api');

    app = startProcess(cmd, { ...ctx, log: false });
    await waitHealthy(app, healthcheck, ctx, 'the api (restarted)');
    const latest = await fetch(`${baseUrl}/api/joy-ratings/latest`, { headers: { cookie } });
    const readBack = await latest.json();
    if (latest.status !== 200 || readBack?.id !== written.id || readBack.overallScore !== written.overallScore) {
      fail(`after the restart GET /api/joy-ratings/latest answered ${latest.status} ${JSON.stringify(readBack)}, not rating ${written.id}`);
    }
    step('after the restart the same session reads the same rating back');
    await stop(app, 'the api (restarted)');

    // The worker entry point loads every module it needs (here it must then refuse: no MONGO_URL).
    const worker = startProcess(['node', 'backend/dist/worker.js'], { ...ctx, env: { ...runEnv, ROLE: 'worker' } });
    const workerExit = await worker.exited;
    if (workerExit.code === 0 || !/MONGO_URL/.test(worker.output) || /Cannot find module|MODULE_NOT_FOUND/.test(worker.output)) {
      fail(`the worker entry point did not load and refuse cleanly without MONGO_URL (code ${workerExit.code}):\n${worker.output}`);
    }

    // Nothing but the volume was written to.
    const written_ = [...inventory(root)].filter((p) => !before.has(p));
    const outside = written_.filter((p) => !volumes.some((vol) => `/${p}`.startsWith(`${vol}/`)));
    if (outside.length > 0) fail(`written outside the volume: ${outside.join(', ')}`);
    const dataFiles = readdirSync(inRoot(env.DATA_DIR)).sort();
    for (const file of ['events.sqlite', 'keys.sqlite', 'sessions.sqlite', 'care-orders.sqlite', 'accounts.sqlite']) {
      if (!dataFiles.includes(file)) fail(`${file} is not in the volume ${env.DATA_DIR} (it holds ${dataFiles.join(', ')})`);
    }
    step(`${env.DATA_DIR} holds ${dataFiles.join(', ')}; nothing written elsewhere`);
    step(`passed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    if (keep) step(`kept ${scratch}`);
    else rmSync(scratch, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(`image smoke: FAILED: ${err instanceof SmokeFailure ? err.message : err.stack}`);
  process.exit(1);
});
