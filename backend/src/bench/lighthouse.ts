import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startAppProcess } from './app-process';
import { pageWeights, weightLines } from './page-weight';

/*
 * Lighthouse figures for `npm run bench` (printed, never asserted; too slow for `npm test`): Lighthouse 12's mobile
 * defaults (simulated slow 4G, 4× CPU slowdown) against the built app, LIGHTHOUSE_RUNS (default 3) runs per page,
 * each printed, and their median. Chromium: CHROME_PATH, else Debian's /usr/bin/chromium. Run alone with
 * `node backend/dist/bench/lighthouse.js`.
 */

const RUNS = Number(process.env.LIGHTHOUSE_RUNS ?? 3);
const PAGES = ['/', '/help'];
const CLI = join(__dirname, '..', '..', '..', 'node_modules', 'lighthouse', 'cli', 'index.js');
const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'] as const;

export interface LighthouseRun {
  scores: Record<(typeof CATEGORIES)[number], number>;
  lcpMs: number;
  cls: number;
  tbtMs: number;
  fcpMs: number;
}

interface Report {
  categories: Record<string, { score: number | null }>;
  audits: Record<string, { numericValue?: number }>;
}

/** One Lighthouse run; tried once more when Lighthouse itself fails (NO_NAVSTART happens on a busy machine). */
async function runOnce(url: string, chrome: string, attempt = 1): Promise<LighthouseRun> {
  try {
    return await lighthouse(url, chrome);
  } catch (err) {
    if (attempt >= 2) throw err;
    console.warn(`  ! Lighthouse failed on ${url}, running it again: ${String((err as { stderr?: string }).stderr ?? err).trim()}`);
    return runOnce(url, chrome, attempt + 1);
  }
}

async function lighthouse(url: string, chrome: string): Promise<LighthouseRun> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      CLI,
      url,
      '--output=json',
      '--quiet',
      `--only-categories=${CATEGORIES.join(',')}`,
      '--chrome-flags=--headless --no-sandbox --disable-gpu',
    ],
    { env: { ...process.env, CHROME_PATH: chrome }, maxBuffer: 64 * 2 ** 20 },
  );
  const report = JSON.parse(stdout) as Report;
  const score = (id: string) => Math.round((report.categories[id]?.score ?? 0) * 100);
  const value = (id: string) => report.audits[id]?.numericValue ?? NaN;
  return {
    scores: Object.fromEntries(CATEGORIES.map((c) => [c, score(c)])) as LighthouseRun['scores'],
    lcpMs: value('largest-contentful-paint'),
    cls: value('cumulative-layout-shift'),
    tbtMs: value('total-blocking-time'),
    fcpMs: value('first-contentful-paint'),
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function line(page: string, label: string, run: LighthouseRun): string {
  const s = run.scores;
  return (
    `| ${page} | ${label} | ${s.performance} | ${(run.lcpMs / 1000).toFixed(2)} s | ${run.cls.toFixed(3)} | ` +
    `${Math.round(run.tbtMs)} ms | ${(run.fcpMs / 1000).toFixed(2)} s | ${s.accessibility} | ${s['best-practices']} | ${s.seo} |`
  );
}

/**
 * Lighthouse of the signed-out pages `/` and `/help` on a fresh app process, then what each page transfers
 * (bench/page-weight.ts); the tables' lines.
 */
export async function lighthouseFigures(): Promise<string[]> {
  const chrome = process.env.CHROME_PATH ?? '/usr/bin/chromium';
  if (!existsSync(chrome)) return [`Lighthouse skipped: no Chromium at ${chrome} (set CHROME_PATH)`];
  const app = await startAppProcess();
  const lines = [
    `Lighthouse 12, mobile, ${RUNS} runs per page (${chrome}):`,
    '| page | run | performance | LCP | CLS | TBT | FCP | accessibility | best practices | SEO |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  try {
    for (const page of PAGES) {
      const runs: LighthouseRun[] = [];
      for (let i = 0; i < RUNS; i++) {
        runs.push(await runOnce(`${app.baseUrl}${page}`, chrome));
        lines.push(line(page, String(i + 1), runs[i]));
      }
      const pick = (f: (r: LighthouseRun) => number) => median(runs.map(f));
      const medianRun: LighthouseRun = {
        scores: Object.fromEntries(CATEGORIES.map((c) => [c, pick((r) => r.scores[c])])) as LighthouseRun['scores'],
        lcpMs: pick((r) => r.lcpMs),
        cls: pick((r) => r.cls),
        tbtMs: pick((r) => r.tbtMs),
        fcpMs: pick((r) => r.fcpMs),
      };
      lines.push(line(page, '**median**', medianRun));
    }
    lines.push('', ...weightLines(await pageWeights(app.baseUrl, chrome)));
  } finally {
    await app.destroy();
  }
  return lines;
}

if (require.main === module) {
  lighthouseFigures()
    .then((lines) => lines.forEach((l) => console.log(l)))
    .catch((err) => {
      console.error(err);
      process.exit(1);
    });
}
