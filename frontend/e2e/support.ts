import { execSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Browser, BrowserContext, chromium, Page } from 'playwright-core';
import { AppProcess, startAppProcess } from '../../backend/src/bench/app-process';

const root = resolve(__dirname, '..', '..');
export const artifacts = join(root, 'test-artifacts', 'screenshots');

export type RunningServer = AppProcess;

/** The built app (`npm run build`) as a user runs it: `node backend/dist/main.js` on the embedded default. */
export const startServer = startAppProcess;

/**
 * For a describe block: starts the built app and a browser before its tests, and closes both after them.
 * `ready` receives them once started.
 */
export function withAppAndBrowser(ready: (server: RunningServer, browser: Browser) => void, env: Record<string, string> = {}): void {
  let server: RunningServer | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    server = await startServer(env);
    browser = await launchBrowser();
    ready(server, browser);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.destroy();
  });
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
/** The narrowest phone the app is made for. */
export const PHONE_360 = { width: 360, height: 780 };
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
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('First name').fill(firstName);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${baseUrl}/`);
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(artifacts, { recursive: true });
  // Animations and transitions are run to their end first: the screenshot shows the settled page, no sleep needed.
  await page.screenshot({ path: join(artifacts, `${name}.png`), fullPage: true, animations: 'disabled' });
}

/** Waits until every running animation and transition has finished (a dialog's fade-in): what a person sees settled. */
export async function animationsFinished(page: Page): Promise<void> {
  await page.evaluate(() => Promise.all(document.getAnimations().map((a) => a.finished.catch(() => undefined))));
}

/** A dialog as the person sees it: the viewport only (a full-page capture misplaces the fixed header under a modal). */
export async function viewportShot(page: Page, name: string): Promise<void> {
  mkdirSync(artifacts, { recursive: true });
  await animationsFinished(page);
  await page.screenshot({ path: join(artifacts, `${name}.png`) });
}

const AXE_PATH = join(dirname(require.resolve('axe-core')), 'axe.min.js');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: unknown[]; failureSummary?: string }>;
}

/** Serious and critical axe-core violations of the page as it is now. */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ path: AXE_PATH });
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: Document, opts: object) => Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.slice(0, 5).map((n) => ({ target: n.target, failureSummary: n.failureSummary })),
    }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

export function describeViolations(where: string, violations: AxeViolation[]): string {
  return violations
    .map((v) => `${where}: [${v.impact}] ${v.id} — ${v.help}\n${v.nodes.map((n) => `    ${JSON.stringify(n.target)}: ${n.failureSummary ?? ''}`).join('\n')}`)
    .join('\n');
}

/** Takes Joy Premium on the Subscribe page with the sandbox's test card (the app runs with BILLING_SANDBOX=1). */
export async function subscribeInSandbox(page: Page, baseUrl: string): Promise<void> {
  await page.goto(`${baseUrl}/subscribe`);
  await page.getByText('Start Your Premium Journey').waitFor();
  await page.getByLabel('Card number').fill('4242 4242 4242 4242');
  await page.getByLabel('Expiry date').fill('1240');
  await page.getByLabel('CVC').fill('123');
  await page.getByRole('button', { name: 'Subscribe to Joy Premium' }).click();
  await page.getByText('Welcome to Joy Premium!').waitFor();
}
