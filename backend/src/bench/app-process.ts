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

export interface AppProcess {
  baseUrl: string;
  dataDir: string;
  start(): Promise<void>;
  /** Stops the process with a signal (SIGKILL to simulate a crash) and waits for it to exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
  destroy(): Promise<void>;
  output(): string;
}

/** The built app as people run it (`node backend/dist/main.js`), on a free port with its own data directory. */
export async function startAppProcess(env: Record<string, string> = {}): Promise<AppProcess> {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run "npm run build" first (npm test does)`);
  const dataDir = mkdtempSync(join(tmpdir(), 'joy-process-'));
  const port = await freePort();
  const baseUrl = `http://localhost:${port}`;
  let child: ChildProcess | null = null;
  let output = '';
  const app: AppProcess = {
    baseUrl,
    dataDir,
    output: () => output,
    async start() {
      output = '';
      child = spawn(process.execPath, [MAIN], {
        // The browser journeys and the bench opt into the development conveniences (password-less sign-in, sandbox
        // checkout) explicitly; a journey of a real install passes AUTH_DEV_LOGIN: '0' / BILLING_SANDBOX: '0'.
        env: { ...process.env, PORT: String(port), DATA_DIR: dataDir, NODE_OPTIONS: '', AUTH_DEV_LOGIN: '1', BILLING_SANDBOX: '1', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout!.on('data', (d) => (output += d));
      child.stderr!.on('data', (d) => (output += d));
      const deadline = Date.now() + 60_000;
      while (Date.now() < deadline) {
        if (child.exitCode !== null) throw new Error(`The app exited at start:\n${output}`);
        try {
          if ((await fetch(`${baseUrl}/api/auth/user`)).status === 401) return;
        } catch {
          // not listening yet
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`The app did not start in 60 s:\n${output}`);
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
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  await app.start();
  return app;
}
