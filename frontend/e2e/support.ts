import { ChildProcess, execSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Browser, BrowserContext, chromium, Page } from 'playwright-core';

const root = resolve(__dirname, '..', '..');
export const artifacts = join(root, 'test-artifacts', 'screenshots');

async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
    server.on('error', fail);
  });
}

export interface RunningServer {
  baseUrl: string;
  dataDir: string;
  stop(signal?: NodeJS.Signals): Promise<void>;
  start(): Promise<void>;
  destroy(): Promise<void>;
}

/** The built app (`npm run build`) as a user runs it: `node backend/dist/main.js` on the embedded default. */
export async function startServer(env: Record<string, string> = {}): Promise<RunningServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'joy-e2e-'));
  const port = await freePort();
  const baseUrl = `http://localhost:${port}`;
  let child: ChildProcess | null = null;
  let output = '';
  const server: RunningServer = {
    baseUrl,
    dataDir,
    async start() {
      output = '';
      child = spawn(process.execPath, [join(root, 'backend', 'dist', 'main.js')], {
        env: { ...process.env, PORT: String(port), DATA_DIR: dataDir, NODE_OPTIONS: '', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout!.on('data', (d) => (output += d));
      child.stderr!.on('data', (d) => (output += d));
      const deadline = Date.now() + 30_000;
      while (Date.now() < deadline) {
        if (child.exitCode !== null) throw new Error(`The app exited at start:\n${output}`);
        try {
          const res = await fetch(`${baseUrl}/api/auth/user`);
          if (res.status === 401) return;
        } catch {
          // not listening yet
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`The app did not start in 30 s:\n${output}`);
    },
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      const running = child;
      if (!running || running.exitCode !== null) return;
      await new Promise<void>((done) => {
        running.once('exit', () => done());
        running.kill(signal);
      });
    },
    async destroy() {
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  await server.start();
  return server;
}

/** Debian's Chromium, headless, with the flags this sandbox needs (no network but loopback). */
export async function launchBrowser(): Promise<Browser> {
  const executablePath = process.env.CHROMIUM_PATH || execSync('command -v chromium || command -v chromium-browser', { shell: '/bin/bash' }).toString().trim();
  return chromium.launch({
    executablePath,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export const PHONE = { width: 390, height: 844 };
export const DESKTOP = { width: 1280, height: 900 };

export async function newPage(browser: Browser, viewport = DESKTOP): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  return { context, page };
}

/** Signs in from the landing page through the development provider's form. */
export async function signInThroughLanding(page: Page, baseUrl: string, email: string, firstName: string): Promise<void> {
  await page.goto(baseUrl);
  await page.getByRole('button', { name: 'Sign In' }).first().click();
  await page.waitForURL(/\/oidc\/interaction\//);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('First name').fill(firstName);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${baseUrl}/`);
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(artifacts, { recursive: true });
  await page.screenshot({ path: join(artifacts, `${name}.png`), fullPage: true });
}
