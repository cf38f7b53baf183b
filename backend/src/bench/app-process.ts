import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createServer } from 'node:net';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

const MAIN = resolve(__dirname, '..', '..', 'dist', 'main.js');

/** The app process ended at start instead of answering (a refusal to start, or a crash): its code and output. */
export class AppExited extends Error {
  constructor(
    readonly code: number,
    readonly output: string,
  ) {
    super(`The app exited at start (code ${code}):\n${output}`);
    this.name = 'AppExited';
  }
}

export interface AppProcess {
  baseUrl: string;
  dataDir: string;
  /** Starts the app again (after stop) and waits until it answers; rejects with its output when it exits instead. */
  start(env?: Record<string, string>): Promise<void>;
  /** Stops the process with a signal (SIGKILL to simulate a crash) and waits for it to exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
  destroy(): Promise<void>;
  output(): string;
  /** The running process's id (null when stopped). */
  pid(): number | null;
}

export interface AppProcessOptions {
  /** The largest file the process may write, in KiB (`ulimit -f`): a small disk, filled by the app's own writes. */
  fileSizeLimitKb?: number;
  /** Run the app as this user of the machine (`runuser -u`; the tests run as root): a DATA_DIR it does not own. */
  runAs?: string;
  /** Use this data directory (kept on destroy) instead of a new one. */
  dataDir?: string;
  /** How long a start may take until the app answers (ms; 60 s unless set): a first start may build read models. */
  startTimeoutMs?: number;
}

/** The built app as people run it (`node backend/dist/main.js`), on a free port with its own data directory. */
export async function startAppProcess(env: Record<string, string> = {}, options: AppProcessOptions = {}): Promise<AppProcess> {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run "npm run build" first (npm test does)`);
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'joy-process-'));
  const port = await freePort();
  const baseUrl = `http://localhost:${port}`;
  let child: ChildProcess | null = null;
  let output = '';
  const app: AppProcess = {
    baseUrl,
    dataDir,
    output: () => output,
    pid: () => (child && child.exitCode === null && child.signalCode === null ? (child.pid ?? null) : null),
    async start(extraEnv: Record<string, string> = {}) {
      output = '';
      // The browser journeys and the bench opt into the development conveniences (password-less sign-in, sandbox
      // checkout) explicitly; a journey of a real install passes AUTH_DEV_LOGIN: '0' / BILLING_SANDBOX: '0'.
      // Load shedding is off: on a test machine the app competes with Jest's other workers and the browser for the
      // cores, and a late event loop there is not the app's own overload (the bench turns it on as in production).
      const optIns = { AUTH_DEV_LOGIN: '1', BILLING_SANDBOX: '1', SHED_EVENT_LOOP_DELAY_MS: '0' };
      const childEnv = { ...process.env, PORT: String(port), DATA_DIR: dataDir, NODE_OPTIONS: '', ...optIns, ...env, ...extraEnv };
      const stdio: ['ignore', 'pipe', 'pipe'] = ['ignore', 'pipe', 'pipe'];
      if (options.fileSizeLimitKb) {
        child = spawn('/bin/sh', ['-c', `ulimit -f ${options.fileSizeLimitKb} && exec "$0" "$1"`, process.execPath, MAIN], { env: childEnv, stdio });
      } else if (options.runAs) child = spawn('runuser', ['-u', options.runAs, '--', process.execPath, MAIN], { env: childEnv, stdio });
      else child = spawn(process.execPath, [MAIN], { env: childEnv, stdio });
      child.stdout!.on('data', (d) => (output += d));
      child.stderr!.on('data', (d) => (output += d));
      const deadline = Date.now() + (options.startTimeoutMs ?? 60_000);
      while (Date.now() < deadline) {
        if (child.exitCode !== null) throw new AppExited(child.exitCode, output);
        try {
          if ((await fetch(`${baseUrl}/api/auth/user`)).status === 401) return;
        } catch {
          // not listening yet
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`The app did not start in ${(options.startTimeoutMs ?? 60_000) / 1000} s:\n${output}`);
    },
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      const running = child;
      if (!running || running.exitCode !== null || running.signalCode !== null) return;
      await new Promise<void>((done) => {
        running.once('exit', () => done());
        running.kill(signal);
      });
    },
    async destroy() {
      await app.stop();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
  await app.start();
  return app;
}
