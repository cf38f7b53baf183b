/**
 * Screenshots of the built app (run `npx vite preview --port 4173` in frontend/ first), with the API mocked:
 *   node frontend/scripts/screenshots.cjs [outDir]
 */
const { chromium } = require('playwright-core');
const { execSync } = require('child_process');
const path = require('path');

const BASE = process.env.BASE_URL || 'http://localhost:4173';
const OUT = path.resolve(process.argv[2] || 'test-artifacts/frontend');

const user = { id: 'u1', email: 'maya@example.com', firstName: 'Maya', profileImageUrl: null };
const now = Date.now();
const rating = (daysAgo, overallScore, f) => ({
  id: `r${daysAgo}`,
  createdAt: new Date(now - daysAgo * 86400000).toISOString(),
  overallScore,
  relationships: f[0], health: f[1], purpose: f[2], growth: f[3], joy: f[4],
});
const ratings = [rating(0, 4.2, [5, 4, 4, 3, 5]), rating(2, 3.6, [4, 3, 4, 3, 4]), rating(9, 2.8, [3, 2, 3, 3, 3])];
const groups = ['The Garcia Family', 'Book Club', 'Running Crew', 'College Friends'].map((name, i) => ({
  id: `g${i}`, name, description: '', inviteCode: 'ABCD2345', createdAt: new Date().toISOString(),
}));

async function mockApi(page, signedIn) {
  await page.route('**/api/**', (route) => {
    const url = new URL(route.request().url());
    const send = (status, body) => route.fulfill({ status, contentType: 'application/json', body: JSON.stringify(body) });
    if (!signedIn) return send(401, { statusCode: 401, message: 'Unauthorized' });
    switch (url.pathname) {
      case '/api/auth/user': return send(200, user);
      case '/api/subscription-status': return send(200, { isPremium: false, status: 'free' });
      case '/api/joy-ratings': return send(200, ratings);
      case '/api/joy-ratings/latest': return send(200, ratings[0]);
      case '/api/groups': return send(200, groups);
      default: return send(404, { statusCode: 404, message: 'Not Found' });
    }
  });
}

(async () => {
  const executablePath = execSync('command -v chromium').toString().trim();
  const browser = await chromium.launch({
    executablePath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const shots = [
    { name: 'landing', path: '/', signedIn: false },
    { name: 'home', path: '/', signedIn: true },
    { name: 'help', path: '/help', signedIn: false },
    { name: '404', path: '/dashboard', signedIn: false },
  ];
  for (const width of (process.env.WIDTHS || "390,1280").split(",").map(Number)) {
    for (const shot of shots) {
      const context = await browser.newContext({ viewport: { width, height: 900 }, serviceWorkers: 'block' });
      const page = await context.newPage();
      page.on('console', (m) => m.type() === 'error' && console.log(`[${shot.name}@${width}] console error:`, m.text()));
      page.on('pageerror', (e) => console.log(`[${shot.name}@${width}] page error:`, e.message));
      await mockApi(page, shot.signedIn);
      await page.goto(BASE + shot.path, { waitUntil: 'networkidle' });
      await page.locator('main h1').first().waitFor({ timeout: 15000 });
      await page.waitForTimeout(600);
      await page.screenshot({ path: path.join(OUT, `${shot.name}-${width}.png`), fullPage: true });
      if (shot.name === 'home' && width === 390) {
        await page.getByRole('button', { name: 'Open menu' }).click();
        await page.waitForTimeout(500);
        await page.screenshot({ path: path.join(OUT, `drawer-${width}.png`) });
      }
      await context.close();
    }
  }
  await browser.close();
  console.log('Screenshots in', OUT);
})().catch((err) => {
  console.error(err);
  process.exit(1);
});
