import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { startAppProcess } from './app-process';

/*
 * Page weight for `npm run bench` (printed, never asserted): what a signed-out visitor's Chromium (empty cache, no
 * service worker) transfers for `/` and `/help` until the page is idle (it shows its
 * heading, then nothing is requested or answered for 2 s),
 * as Chromium counts it: every response's headers and body as received. Chromium asks for brotli on localhost too
 * (`Accept-Encoding: gzip, deflate, br, zstd`), so the static files arrive as their .br twins.
 * Run alone with `node backend/dist/bench/page-weight.js` (PAGE_WEIGHT_FILES=1 also lists every file,
 * PAGE_WEIGHT_SCREENSHOTS=dir saves screenshots of each page at 360 and 1280 px).
 */

const PAGES = ['/', '/help'];
const QUIET_MS = 2000;

export interface PageWeight {
  page: string;
  files: { path: string; type: string; bytes: number; encoding: string }[];
}

/** Loads each page in Chromium (signed out, empty cache) and weighs what it fetched. */
export async function pageWeights(baseUrl: string, chrome: string, screenshots?: string): Promise<PageWeight[]> {
  const browser = await chromium.launch({ executablePath: chrome, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic'] });
  const weights: PageWeight[] = [];
  try {
    for (const page of PAGES) {
      const context = await browser.newContext({ viewport: { width: 412, height: 823 }, serviceWorkers: 'block' });
      const tab = await context.newPage();
      const measured: Promise<PageWeight['files'][number]>[] = [];
      let lastActivity = Date.now();
      let inFlight = 0;
      tab.on('request', () => {
        inFlight++;
        lastActivity = Date.now();
      });
      tab.on('requestfailed', () => {
        inFlight--;
        lastActivity = Date.now();
      });
      tab.on('requestfinished', (req) => {
        inFlight--;
        lastActivity = Date.now();
        measured.push(
          (async () => {
            const [sizes, response] = await Promise.all([req.sizes(), req.response()]);
            const headers = (await response?.allHeaders()) ?? {};
            const url = req.url();
            return {
              path: url.startsWith(baseUrl) ? url.slice(baseUrl.length) : url,
              type: (headers['content-type'] ?? '').split(';')[0],
              bytes: sizes.responseBodySize + sizes.responseHeadersSize,
              encoding: headers['content-encoding'] ?? 'none',
            };
          })(),
        );
      });
      await tab.goto(`${baseUrl}${page}`, { waitUntil: 'load' });
      // Idle: the page shows its heading and nothing was requested or answered for QUIET_MS.
      await tab.getByRole('heading', { level: 1 }).first().waitFor({ timeout: 60_000 });
      while (inFlight > 0 || Date.now() - lastActivity < QUIET_MS) await tab.waitForTimeout(100);
      const files = await Promise.all(measured);
      if (screenshots) {
        mkdirSync(screenshots, { recursive: true });
        for (const width of [360, 1280]) {
          await tab.setViewportSize({ width, height: 800 });
          await tab.screenshot({ path: join(screenshots, `${page === '/' ? 'landing' : page.slice(1)}-${width}.png`), fullPage: true, animations: 'disabled' });
        }
      }
      await context.close();
      weights.push({ page, files });
    }
  } finally {
    await browser.close();
  }
  return weights;
}

const kb = (bytes: number) => `${(bytes / 1000).toFixed(1)} KB`;

export function weightLines(weights: PageWeight[]): string[] {
  const lines = ['Page weight, signed out, until idle (as Chromium received it: brotli, headers included):'];
  lines.push('| page | requests | total | scripts | styles | HTML | other |', '|---|---|---|---|---|---|---|');
  for (const w of weights) {
    const sum = (test: (type: string) => boolean) => w.files.filter((f) => test(f.type)).reduce((s, f) => s + f.bytes, 0);
    const scripts = sum((t) => t.includes('javascript'));
    const styles = sum((t) => t === 'text/css');
    const html = sum((t) => t === 'text/html');
    const total = sum(() => true);
    lines.push(`| ${w.page} | ${w.files.length} | **${kb(total)}** | ${kb(scripts)} | ${kb(styles)} | ${kb(html)} | ${kb(total - scripts - styles - html)} |`);
  }
  return lines;
}

if (require.main === module) {
  (async () => {
    const chrome = process.env.CHROME_PATH ?? '/usr/bin/chromium';
    if (!existsSync(chrome)) throw new Error(`No Chromium at ${chrome} (set CHROME_PATH)`);
    const app = await startAppProcess();
    try {
      const screenshots = process.env.PAGE_WEIGHT_SCREENSHOTS ? resolve(process.env.PAGE_WEIGHT_SCREENSHOTS) : undefined;
      const weights = await pageWeights(app.baseUrl, chrome, screenshots);
      for (const line of weightLines(weights)) console.log(line);
      if (process.env.PAGE_WEIGHT_FILES) {
        for (const w of weights) for (const f of w.files) console.log(`${w.page}\t${f.bytes}\t${f.encoding}\t${f.path}`);
      }
    } finally {
      await app.destroy();
    }
  })().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
