import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { get, type IncomingHttpHeaders } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { api, signIn, startTestApp, type TestApp } from '../testing/app-harness';
import { writeBuild } from '../testing/frontend-build';
import { COMPRESSION_THRESHOLD_BYTES } from './frontend';

const SCRIPT = `console.log(${JSON.stringify('joy '.repeat(500))});`;
const INDEX = '<!doctype html><html lang="en"><head><title>Joy</title></head><body><div id="root"></div></body></html>';

/** An answer's raw bytes, as sent (HTTP clients such as supertest and fetch would decompress them). */
function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    get(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    }).on('error', reject);
  });
}

describe('compression', () => {
  let app: TestApp;
  let dist: string;

  beforeAll(async () => {
    dist = mkdtempSync(join(tmpdir(), 'joy-dist-'));
    writeBuild(dist, { 'index.html': INDEX, 'assets/index-AbC123.js': SCRIPT, 'assets/index-AbC123.css': 'body{margin:0}' });
    app = await startTestApp({ FRONTEND_DIST: dist });
  });
  afterAll(async () => {
    await app.destroy();
    rmSync(dist, { recursive: true, force: true });
  });

  describe('static files', () => {
    it('sends the brotli file to a client accepting br, with its own type, Vary and a year of caching', async () => {
      const res = await rawGet(`${app.baseUrl}/assets/index-AbC123.js`, { 'Accept-Encoding': 'gzip, deflate, br' });
      expect(res.status).toBe(200);
      expect(res.headers['content-encoding']).toBe('br');
      expect(res.headers['content-type']).toMatch(/^(text|application)\/javascript; charset=utf-8$/i);
      expect(res.headers.vary).toMatch(/Accept-Encoding/);
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(brotliDecompressSync(res.body).toString()).toBe(SCRIPT);
      expect(res.body.length).toBeLessThan(SCRIPT.length / 10);
    });

    it('sends the gzip file to a client accepting gzip only', async () => {
      const res = await rawGet(`${app.baseUrl}/assets/index-AbC123.css`, { 'Accept-Encoding': 'gzip' });
      expect(res.headers['content-encoding']).toBe('gzip');
      expect(res.headers['content-type']).toMatch(/^text\/css; charset=utf-8$/i);
      expect(res.headers.vary).toMatch(/Accept-Encoding/);
      expect(gunzipSync(res.body).toString()).toBe('body{margin:0}');
    });

    it('sends the file as it is to a client accepting no compression', async () => {
      const res = await rawGet(`${app.baseUrl}/assets/index-AbC123.js`, { 'Accept-Encoding': 'identity' });
      expect(res.headers['content-encoding']).toBeUndefined();
      expect(res.headers.vary).toMatch(/Accept-Encoding/);
      expect(res.body.toString()).toBe(SCRIPT);
    });

    it('sends index.html compressed and never cached, for the page paths the client router handles too', async () => {
      for (const path of ['/', '/help', '/dashboard']) {
        const res = await rawGet(`${app.baseUrl}${path}`, { Accept: 'text/html', 'Accept-Encoding': 'br' });
        expect([path, res.status, res.headers['content-encoding']]).toEqual([path, 200, 'br']);
        expect(res.headers['content-type']).toMatch(/^text\/html; charset=utf-8$/i);
        expect(res.headers['cache-control']).toBe('no-cache');
        expect(res.headers.vary).toMatch(/Accept-Encoding/);
        expect(brotliDecompressSync(res.body).toString()).toBe(INDEX);
      }
    });
  });

  describe('API answers', () => {
    it(`compresses JSON answers of ${COMPRESSION_THRESHOLD_BYTES} bytes or more, not shorter ones`, async () => {
      const cookie = await signIn(app.baseUrl, 'zip@example.com', 'Zip');
      const small = await rawGet(`${app.baseUrl}/api/joy-ratings`, { Cookie: cookie, 'Accept-Encoding': 'gzip, br' });
      expect(small.status).toBe(200);
      expect(small.body.length).toBeLessThan(COMPRESSION_THRESHOLD_BYTES);
      expect(small.headers['content-encoding']).toBeUndefined();

      for (let i = 0; i < 12; i++) {
        const saved = await api(app.baseUrl, cookie).post('/api/joy-ratings', { relationships: 1 + (i % 5), health: 4, purpose: 3, growth: 5, joy: 2 });
        expect(saved.status).toBe(201);
      }
      const plain = await api(app.baseUrl, cookie).get('/api/joy-ratings').set('Accept-Encoding', 'identity');
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.text.length).toBeGreaterThan(COMPRESSION_THRESHOLD_BYTES);

      const big = await rawGet(`${app.baseUrl}/api/joy-ratings`, { Cookie: cookie, 'Accept-Encoding': 'gzip' });
      expect(big.status).toBe(200);
      expect(big.headers['content-encoding']).toBe('gzip');
      expect(big.headers['content-type']).toMatch(/^application\/json/);
      expect(big.headers.vary).toMatch(/Accept-Encoding/);
      expect(JSON.parse(gunzipSync(big.body).toString())).toEqual(JSON.parse(plain.text));
    });
  });
});

/** The real build (`npm run build`, which `npm test` runs first). */
describe('the built frontend', () => {
  const dist = join(__dirname, '..', '..', '..', 'frontend', 'dist');
  const assets = () => {
    if (!existsSync(join(dist, 'index.html'))) throw new Error(`${dist} is missing: run "npm run build" first (npm test does)`);
    return readdirSync(join(dist, 'assets')).map((name) => join(dist, 'assets', name));
  };

  it('has no script chunk over 500 kB (Vite warns above it)', () => {
    const scripts = assets().filter((file) => file.endsWith('.js'));
    expect(scripts.length).toBeGreaterThan(0);
    const over = scripts.filter((file) => statSync(file).size > 500_000);
    expect(over).toEqual([]);
  });

  it('has a brotli and a gzip twin, smaller than itself, for every script, style sheet and index.html', () => {
    const files = [join(dist, 'index.html'), ...assets().filter((file) => /\.(js|css)$/.test(file))];
    for (const file of files) {
      for (const twin of [`${file}.br`, `${file}.gz`]) {
        expect([twin, existsSync(twin)]).toEqual([twin, true]);
        if (statSync(file).size > 1000) expect(statSync(twin).size).toBeLessThan(statSync(file).size);
      }
    }
  });
});
