import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { get, type IncomingHttpHeaders } from 'node:http';
import { brotliDecompressSync } from 'node:zlib';
import { api, signIn, startTestApp, type TestApp } from '../testing/app-harness';
import { writeBuild } from '../testing/frontend-build';
import { LANDING_FILE, PRERENDERED_FILES } from './frontend';

const APP = '<!doctype html><html><head><script type="module" src="/assets/index-1.js"></script></head><body><div id="root"></div></body></html>';
const LANDING = '<!doctype html><html><head><title>Joy</title></head><body><h1>Discover what truly makes you happy</h1></body></html>';
const HELP = '<!doctype html><html><head><title>Help &amp; Support · Joy</title></head><body><h1>Help &amp; Support</h1></body></html>';
const PRIVACY = '<!doctype html><html><head><title>Privacy Policy · Joy</title></head><body><h1>Privacy Policy</h1></body></html>';
const TERMS = '<!doctype html><html><head><title>Terms of Service · Joy</title></head><body><h1>Terms of Service</h1></body></html>';
const PUBLIC_PAGES: Record<string, string> = { '/help': HELP, '/privacy': PRIVACY, '/terms': TERMS };

function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; headers: IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    get(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: (res.headers['content-encoding'] === 'br' ? brotliDecompressSync(body) : body).toString() });
      });
    }).on('error', reject);
  });
}

const page = (app: TestApp, path: string, cookie?: string) =>
  rawGet(`${app.baseUrl}${path}`, { Accept: 'text/html', 'Accept-Encoding': 'gzip, deflate, br', ...(cookie ? { Cookie: cookie } : {}) });

describe('the landing page at /', () => {
  let app: TestApp;
  let dist: string;

  beforeAll(async () => {
    dist = mkdtempSync(join(tmpdir(), 'joy-dist-'));
    writeBuild(dist, { 'index.html': APP, [LANDING_FILE]: LANDING, 'help.html': HELP, 'privacy.html': PRIVACY, 'terms.html': TERMS });
    app = await startTestApp({ FRONTEND_DIST: dist });
  });
  afterAll(async () => {
    await app.destroy();
    rmSync(dist, { recursive: true, force: true });
  });

  it('is the prerendered page for a visitor who is not signed in: compressed, never cached, varying by cookie', async () => {
    for (const path of ['/', '/?utm_source=mail']) {
      const res = await page(app, path);
      expect([path, res.status, res.text]).toEqual([path, 200, LANDING]);
      expect(res.headers['content-encoding']).toBe('br');
      expect(res.headers['content-type']).toMatch(/^text\/html; charset=utf-8$/i);
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.headers.vary).toMatch(/Accept-Encoding/);
      expect(res.headers.vary).toMatch(/Cookie/);
    }
  });

  it('is the prerendered page with a session cookie that signs nobody in (forged, or of an ended session)', async () => {
    expect((await page(app, '/', 'joy.sid=s%3Anot-a-session.forged')).text).toBe(LANDING);
    const cookie = await signIn(app.baseUrl, 'leaving@example.com', 'Leaving');
    await api(app.baseUrl, cookie).get('/api/logout');
    expect((await page(app, '/', cookie)).text).toBe(LANDING);
  });

  it('is the app (Home) for a signed-in person, and stays so while they use it', async () => {
    const cookie = await signIn(app.baseUrl, 'home@example.com', 'Home');
    for (let i = 0; i < 3; i++) {
      const res = await page(app, '/', cookie);
      expect(res.status).toBe(200);
      expect(res.text).toBe(APP);
      expect(res.headers.vary).toMatch(/Cookie/);
    }
    expect((await api(app.baseUrl, cookie).get('/api/auth/user')).status).toBe(200);
  });

  it('is the prerendered page at /help, /privacy and /terms for a visitor who is not signed in, the app for one who is', async () => {
    const cookie = await signIn(app.baseUrl, 'reader@example.com', 'Reader');
    for (const [path, html] of Object.entries(PUBLIC_PAGES)) {
      for (const url of [path, `${path}/`, `${path}?from=footer`]) {
        const res = await page(app, url);
        expect([url, res.status, res.text]).toEqual([url, 200, html]);
        expect(res.headers['content-encoding']).toBe('br');
        expect(res.headers['cache-control']).toBe('no-cache');
        expect(res.headers.vary).toMatch(/Cookie/);
        expect([url, (await page(app, url, cookie)).text]).toEqual([url, APP]);
      }
    }
  });

  it('leaves every other page to the app, signed in or not', async () => {
    for (const path of ['/dashboard', '/helpful', '/help/more', '/HELP', '/index.html', '/no-such-page']) {
      expect([path, (await page(app, path)).text]).toEqual([path, APP]);
    }
  });
});

describe('the landing page on a demo install', () => {
  it('is the app, which shows the Demo banner', async () => {
    const dist = mkdtempSync(join(tmpdir(), 'joy-dist-'));
    writeBuild(dist, { 'index.html': APP, [LANDING_FILE]: LANDING });
    const app = await startTestApp({ FRONTEND_DIST: dist, NODE_ENV: 'production', AUTH_DEV_LOGIN: '1' });
    try {
      expect((await page(app, '/')).text).toBe(APP);
    } finally {
      await app.destroy();
      rmSync(dist, { recursive: true, force: true });
    }
  });
});

/** The real build (`npm run build`, which `npm test` runs first). */
describe('the built public pages', () => {
  const dist = join(__dirname, '..', '..', '..', 'frontend', 'dist');

  it.each([
    ['/help', 'Help &amp; Support · Joy', ['How to rate your joy', 'Frequently asked questions', 'href="/groups"']],
    ['/privacy', 'Privacy Policy · Joy', ['Privacy Policy']],
    ['/terms', 'Terms of Service · Joy', ['Terms of Service', 'Medical disclaimer']],
  ])('%s has its title, texts, links and Sign In, and loads no script: under 150 KB with its style sheet', (path, title, texts) => {
    const file = join(dist, PRERENDERED_FILES[path]);
    if (!existsSync(file)) throw new Error(`${file} is missing: run "npm run build" first (npm test does)`);
    const html = readFileSync(file, 'utf8');
    expect(html).toContain(`<title>${title}</title>`);
    for (const text of texts) expect(html).toContain(text);
    // The frame: Sign In (a form to the sign-in route), the footer's links to the other public pages, home.
    expect(html).toMatch(/<form [^>]*action="\/api\/login" method="get"/);
    for (const href of ['/help', '/privacy', '/terms', '/']) expect(html).toContain(`href="${href}"`);
    expect(html).not.toMatch(/<script/i);
    const styles = [...html.matchAll(/<link rel="stylesheet"[^>]* href="([^"]+)"/g)].map((m) => join(dist, m[1]));
    expect(styles).toHaveLength(1);
    const bytes = [file, ...styles].reduce((sum, f) => sum + readFileSync(`${f}.br`).length, 0);
    expect(bytes).toBeLessThan(150_000);
  });
});

describe('the built landing page', () => {
  const dist = join(__dirname, '..', '..', '..', 'frontend', 'dist');
  const file = join(dist, LANDING_FILE);

  it('has the landing texts and loads no script: under 150 KB with its style sheet, brotli-compressed', () => {
    if (!existsSync(file)) throw new Error(`${file} is missing: run "npm run build" first (npm test does)`);
    const html = readFileSync(file, 'utf8');
    expect(html).toContain('Find It. Measure It. Share It.');
    expect(html).toContain('5 Pillars of Joy');
    expect(html).not.toMatch(/<script/i);
    const styles = [...html.matchAll(/<link rel="stylesheet"[^>]* href="([^"]+)"/g)].map((m) => join(dist, m[1]));
    expect(styles).toHaveLength(1);
    const bytes = [file, ...styles].reduce((sum, f) => sum + readFileSync(`${f}.br`).length, 0);
    expect(bytes).toBeLessThan(150_000);
  });
});
