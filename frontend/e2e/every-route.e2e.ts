/**
 * Every route of SPEC §2, signed out and signed in, at phone and desktop widths: each page renders its
 * heading, is screenshotted (test-artifacts/screenshots/every-route-*), and has no serious or critical
 * axe-core violation. Then the service worker's offline app shell.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { DESKTOP, describeViolations, launchBrowser, PHONE, RunningServer, screenshot, seriousViolations, signInThroughLanding, startServer } from './support';

/** A page in a fresh context; CSP bypassed so that axe-core can be injected (the app's CSP forbids inline scripts). */
async function open(
  browser: Browser,
  viewport: { width: number; height: number },
  storageState?: Awaited<ReturnType<BrowserContext['storageState']>>,
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport, storageState, bypassCSP: true });
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  return { context, page };
}

interface RouteCheck {
  path: string;
  name: string;
  /** The page's h1 (a string or pattern); undefined = any h1 or the loading placeholder (pages still being built). */
  heading?: string | RegExp;
  charts?: number;
}

const SIGNED_OUT: RouteCheck[] = [
  { path: '/', name: 'landing', heading: /Discover what truly makes you/ },
  { path: '/privacy', name: 'privacy', heading: 'Privacy Policy' },
  { path: '/terms', name: 'terms', heading: 'Terms of Service' },
  { path: '/help', name: 'help', heading: 'Help & Support' },
  { path: '/no-such-page', name: 'unknown', heading: '404 Page Not Found' },
  // A signed-in page, visited signed out: sign-in first, which comes back to it (PRODUCT.md; accounts.e2e follows it through).
  { path: '/dashboard', name: 'dashboard', heading: /^(Sign in|Development sign-in)$/ },
];

const SIGNED_IN: RouteCheck[] = [
  { path: '/', name: 'home', heading: 'Welcome back, Ada!' },
  { path: '/dashboard', name: 'dashboard', heading: 'Your Joy Dashboard', charts: 2 },
  { path: '/groups', name: 'groups' },
  { path: '/insights', name: 'insights', heading: 'Joy Insights', charts: 2 },
  { path: '/subscribe', name: 'subscribe' },
  { path: '/account', name: 'account', heading: 'Your Account' },
  { path: '/settings', name: 'settings', heading: 'Settings' },
  { path: '/history', name: 'history', heading: 'Your History', charts: 1 },
  { path: '/care/sent', name: 'care-sent', heading: 'Care You Sent' },
  { path: '/logos', name: 'logos', heading: 'Logo Concepts' },
  { path: '/help', name: 'help', heading: 'Help & Support' },
  { path: '/privacy', name: 'privacy', heading: 'Privacy Policy' },
  { path: '/terms', name: 'terms', heading: 'Terms of Service' },
  { path: '/no-such-page', name: 'unknown', heading: '404 Page Not Found' },
];

/** The smallest phone the app supports, a tablet, a laptop (issue 18's design pass). */
const WIDTHS = [
  { label: 'phone', viewport: { width: 360, height: PHONE.height } },
  { label: 'tablet', viewport: { width: 768, height: 1024 } },
  { label: 'desktop', viewport: DESKTOP },
] as const;

/**
 * What a person would notice is wrong with the layout: words broken in the middle (a word of 4+ letters whose
 * letters sit on two lines; e-mail addresses and links may break), and headings cut off (their text wider than
 * their box).
 */
async function layoutProblems(page: Page, shot: string): Promise<string[]> {
  const { broken, clipped } = await page.evaluate(() => {
    const broken = new Set<string>();
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent ?? '';
      for (const m of text.matchAll(/[^\s\-–—/]{4,}/g)) {
        if (m[0].includes('@') || m[0].length > 24) continue;
        const range = document.createRange();
        range.setStart(node, m.index!);
        range.setEnd(node, m.index! + m[0].length);
        const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0 && r.height > 0).map((r) => Math.round(r.bottom)));
        if (lines.size > 1) broken.add(m[0]);
      }
    }
    const clipped = [...document.querySelectorAll<HTMLElement>('h1, h2, h3')]
      .filter((h) => h.offsetParent !== null && h.scrollWidth > h.clientWidth + 1)
      .map((h) => h.textContent ?? '');
    return { broken: [...broken], clipped };
  });
  return [
    ...broken.map((word) => `${shot}: "${word}" is broken across two lines`),
    ...clipped.map((title) => `${shot}: the heading "${title}" is cut off`),
  ];
}

/** Visits a route, waits for it to settle, screenshots it and returns its serious axe violations as text. */
async function visit(page: Page, baseUrl: string, route: RouteCheck, shot: string): Promise<string> {
  const errors: string[] = [];
  const onError = (e: Error) => errors.push(e.message);
  page.on('pageerror', onError);
  await page.goto(`${baseUrl}${route.path}`);
  try {
    if (route.heading) {
      await page.getByRole('heading', { level: 1, name: route.heading }).first().waitFor();
    } else {
      await page.locator('h1, [role="status"]').first().waitFor();
    }
  } catch (error) {
    await screenshot(page, `${shot}-FAILED`);
    throw new Error(`${shot}: ${(error as Error).message}\npage errors: ${errors.join('\n')}`);
  } finally {
    page.off('pageerror', onError);
  }
  await page.waitForLoadState('networkidle');
  if (route.charts) {
    // Each chart says when it has drawn its option, entry animation included.
    await page.locator('[data-testid="echart"][data-rendered="true"]').nth(route.charts - 1).waitFor();
  }
  // No horizontal scrolling at any width, no word broken mid-word, no heading cut off.
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  await screenshot(page, shot);
  const problems = [describeViolations(shot, await seriousViolations(page)), ...(await layoutProblems(page, shot))];
  if (overflow > 1) problems.push(`${shot}: page scrolls sideways by ${overflow}px`);
  return problems.filter(Boolean).join('\n');
}

describe('every route, signed out and signed in, at 360, 768 and 1280 px', () => {
  let server: RunningServer;
  let browser: Browser;
  let signedIn: Awaited<ReturnType<BrowserContext['storageState']>>;

  beforeAll(async () => {
    server = await startServer();
    browser = await launchBrowser();
    // Sign in once and seed a week of ratings (seven, one per "day" of check-ins) through the API.
    const { page, context } = await open(browser, DESKTOP);
    await signInThroughLanding(page, server.baseUrl, 'ada@example.com', 'Ada');
    await page.getByText('Welcome back, Ada!').waitFor();
    const week = [
      [3, 3, 3, 2, 3],
      [3, 4, 3, 2, 3],
      [4, 3, 3, 3, 3],
      [4, 4, 3, 2, 4],
      [4, 4, 4, 3, 4],
      [5, 4, 4, 3, 4],
      [5, 5, 4, 3, 5],
    ];
    for (const [relationships, health, purpose, growth, joy] of week) {
      const res = await page.request.post(`${server.baseUrl}/api/joy-ratings`, {
        data: { relationships, health, purpose, growth, joy },
        headers: { Origin: server.baseUrl },
      });
      expect(res.ok()).toBe(true);
    }
    signedIn = await context.storageState();
    await context.close();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.destroy();
  });

  for (const { label, viewport } of WIDTHS) {
    it(`signed out, ${label}: the public routes, the 404 for an unknown path, sign-in for a signed-in one`, async () => {
      const { page, context } = await open(browser, viewport);
      const problems: string[] = [];
      for (const route of SIGNED_OUT) {
        problems.push(await visit(page, server.baseUrl, route, `every-route-out-${route.name}-${label}`));
      }
      await context.close();
      expect(problems.filter(Boolean).join('\n')).toBe('');
    }, 180_000);

    it(`signed in, ${label}: every page`, async () => {
      const { page, context } = await open(browser, viewport, signedIn);
      const problems: string[] = [];
      for (const route of SIGNED_IN) {
        problems.push(await visit(page, server.baseUrl, route, `every-route-in-${route.name}-${label}`));
      }

      // Dashboard and Insights show the seeded week.
      await page.goto(`${server.baseUrl}/dashboard`);
      await page.getByRole('heading', { name: 'Joy Trend (Last 14 Days)' }).waitFor();
      await expect(page.getByTestId('card-overall').locator('.stat-card__value').textContent()).resolves.toBe('4.4');
      await expect(page.getByTestId('card-trend').locator('.stat-card__value').textContent()).resolves.toContain('+0.4');
      await expect(page.getByTestId('card-days').locator('.stat-card__value').textContent()).resolves.toBe('1');
      await page.goto(`${server.baseUrl}/insights`);
      await page.getByRole('heading', { name: 'Personalized Insights' }).waitFor();
      await page.getByRole('heading', { name: 'Consistency Milestone' }).waitFor();
      await page.getByRole('heading', { name: 'Growth Opportunity' }).waitFor();

      if (label === 'phone') {
        // The navigation drawer: opened and closed with the keyboard, links labelled, no violations.
        await page.getByRole('button', { name: 'Open menu' }).focus();
        await page.keyboard.press('Enter');
        const drawer = page.getByRole('dialog');
        await drawer.getByRole('link', { name: 'Insights' }).waitFor();
        await screenshot(page, `every-route-in-menu-${label}`);
        problems.push(describeViolations(`every-route-in-menu-${label}`, await seriousViolations(page)));
        await page.keyboard.press('Escape');
        await drawer.waitFor({ state: 'hidden' });
        const focused = () => page.evaluate(() => `${document.activeElement?.tagName} ${document.activeElement?.textContent ?? ''}`.trim());
        // Closed with Escape, the focus is back on the menu button.
        await page.waitForFunction(() => document.activeElement?.getAttribute('aria-label') === 'Open menu', undefined, { timeout: 5_000 });
        // A link of the menu: the focus is on the new page's heading, and stays there once the drawer's motion ends.
        await page.getByRole('button', { name: 'Open menu' }).press('Enter');
        await drawer.getByRole('link', { name: 'Dashboard' }).focus();
        await page.keyboard.press('Enter');
        await drawer.waitFor({ state: 'hidden' });
        await page.waitForTimeout(1_500);
        expect(await focused()).toBe('H1 Your Joy Dashboard');
        // The browser's Back: the focus is on the heading of the page it went back to, not on the page itself.
        await page.goBack();
        await page.getByRole('heading', { level: 1, name: 'Joy Insights' }).waitFor();
        await page.waitForFunction(() => document.activeElement?.tagName === 'H1', undefined, { timeout: 5_000 });
        expect(await focused()).toBe('H1 Joy Insights');
      } else {
        // The star picker works from the keyboard: one tab stop, arrows change the value.
        await page.goto(`${server.baseUrl}/dashboard`);
        const three = page.getByRole('radio', { name: 'Health: 3 stars, Moderate' });
        await three.focus();
        await page.keyboard.press('ArrowRight');
        await expect(page.getByRole('radio', { name: 'Health: 4 stars, High' }).isChecked()).resolves.toBe(true);
        await expect(page.getByTestId('overall-score').textContent()).resolves.toBe('3.2');
      }
      await context.close();
      expect(problems.filter(Boolean).join('\n')).toBe('');
    }, 240_000);
  }

  it('fits the top bar of a long first name on a desktop: Sign Out stays on the screen from 1200 px up', async () => {
    const { page, context } = await open(browser, DESKTOP);
    await signInThroughLanding(page, server.baseUrl, 'christopher.long@example.com', 'Christopher-Maximilian');
    await page.getByText('Welcome back, Christopher-Maximilian!').waitFor();
    const problems: string[] = [];
    for (const width of [1200, 1280, 1366, 1440, 1920]) {
      await page.setViewportSize({ width, height: DESKTOP.height });
      const signOut = await page.getByRole('button', { name: 'Sign Out' }).boundingBox();
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      // Within the bar's own width too (the page's 1200 px column), not past it on a wide screen.
      const barEnd = await page.evaluate(() => document.querySelector('.topbar__inner')!.getBoundingClientRect().right);
      const end = signOut ? signOut.x + signOut.width : Infinity;
      if (overflow > 1 || end > width || end > barEnd) problems.push(`${width}px: page scrolls by ${overflow}px, Sign Out ends at ${end}, the bar at ${barEnd}`);
      // Every icon of the bar at its size: a bar too full squeezed them to slivers of 3 to 9 px (a review, 11-27).
      const squeezed = await page.evaluate(() =>
        [...document.querySelectorAll('.topbar .nav-desktop .anticon')].filter((icon) => icon.getBoundingClientRect().width < 14).map((icon) => icon.closest('a, button')?.textContent),
      );
      if (squeezed.length > 0) problems.push(`${width}px: the icons of ${squeezed.join(', ')} are squeezed`);
      if (width === 1280) await screenshot(page, 'every-route-in-topbar-long-name-desktop');
    }
    // The greeting link keeps its name for a screen reader where the text is not shown.
    await page.setViewportSize(DESKTOP);
    await page.getByRole('link', { name: /Hi, Christopher-Maximilian/ }).waitFor();
    await context.close();
    expect(problems).toEqual([]);
  });

  it('serves the landing page without the app to a signed-out visitor: it works without JavaScript', async () => {
    const context = await browser.newContext({ viewport: PHONE, javaScriptEnabled: false });
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    const scripts: string[] = [];
    page.on('request', (r) => (r.resourceType() === 'script' ? scripts.push(r.url()) : undefined));
    await page.goto(server.baseUrl);
    await page.getByRole('heading', { level: 1, name: /Discover what truly makes you/ }).waitFor();
    await page.getByText('Find It. Measure It. Share It.').first().waitFor();
    await page.getByRole('heading', { name: '5 Pillars of Joy' }).waitFor();
    await screenshot(page, 'every-route-out-landing-no-javascript-phone');
    for (const name of ['Sign In', 'Get Started Free', 'Sign Up']) {
      await page.goto(server.baseUrl);
      await page.getByRole('button', { name }).click();
      await page.waitForURL(/\/oidc\/interaction\//);
    }
    expect(scripts).toEqual([]);
    await context.close();
  }, 120_000);

  it('keeps the app shell, not the landing page, for offline use after signing out', async () => {
    const { page, context } = await open(browser, DESKTOP);
    await signInThroughLanding(page, server.baseUrl, 'otto@example.com', 'Otto');
    await page.getByText('Welcome back, Otto!').waitFor();
    await page.evaluate(() => navigator.serviceWorker.ready);
    await page.waitForFunction(() => !!navigator.serviceWorker.controller);
    // Sign out: the server sends the landing page for "/" now, through the worker.
    await page.goto(`${server.baseUrl}/api/logout`);
    await page.getByRole('heading', { level: 1, name: /Discover what truly makes you/ }).waitFor();
    expect(await page.locator('script').count()).toBe(0);

    await context.setOffline(true);
    await page.goto(`${server.baseUrl}/dashboard`);
    await page.getByRole('heading', { name: 'You are offline' }).waitFor();
    await context.setOffline(false);
    await context.close();
  }, 120_000);

  it("keeps the navigation and offers Try again when a page's code cannot be fetched (the server away, or an update)", async () => {
    // No service worker: the failed fetch must come from the network, as on a first visit.
    const context = await browser.newContext({ viewport: DESKTOP, storageState: signedIn, serviceWorkers: 'block' });
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    await page.goto(server.baseUrl);
    await page.getByText('Welcome back, Ada!').waitFor();
    // History's code has not been fetched in this tab yet, and its fetch fails.
    const historyCode = /\/assets\/History-[^/]+\.js$/;
    await page.route(historyCode, (route) => route.abort('connectionrefused'));
    const nav = page.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'History' }).click();
    await page.getByRole('heading', { level: 1, name: 'This page could not be loaded' }).waitFor();
    await screenshot(page, 'every-route-in-page-load-failed-desktop');
    // The rest of the app still works (the whole screen went blank before).
    await nav.getByRole('link', { name: 'Dashboard' }).click();
    await page.getByRole('heading', { level: 1, name: 'Your Joy Dashboard' }).waitFor();
    // With the server answering again, Try again loads the page.
    await page.unroute(historyCode);
    await nav.getByRole('link', { name: 'History' }).click();
    await page.getByRole('button', { name: 'Try again' }).click();
    await page.getByRole('heading', { level: 1, name: 'Your History' }).waitFor();
    await context.close();
  }, 120_000);

  it('opens the app shell with an offline message when reloaded offline', async () => {
    const { page, context } = await open(browser, DESKTOP, signedIn);
    const logs: string[] = [];
    page.on('console', (m) => logs.push(m.text()));
    await page.goto(`${server.baseUrl}/dashboard`);
    await page.getByRole('heading', { name: 'Your Joy Dashboard' }).waitFor();
    // The worker is registered (and logged, SPEC §2) and controls the page.
    await page.evaluate(() => navigator.serviceWorker.ready);
    await page.waitForFunction(() => !!navigator.serviceWorker.controller);
    expect(logs.some((l) => l.startsWith('Service worker registered'))).toBe(true);
    const sw = await page.request.get(`${server.baseUrl}/sw.js`);
    expect(sw.headers()['cache-control']).toBe('no-cache');

    await context.setOffline(true);
    await page.reload();
    expect(page.url()).toBe(`${server.baseUrl}/dashboard`);
    await page.getByRole('heading', { name: 'You are offline' }).waitFor();
    await page.getByRole('alert').filter({ hasText: 'You are offline' }).waitFor();
    await screenshot(page, 'every-route-offline-desktop');
    expect(await page.getByText('404 Page Not Found').count()).toBe(0);

    // Another page of the app, never visited: still the shell, not the browser's error page.
    await page.goto(`${server.baseUrl}/insights`);
    await page.getByRole('heading', { name: 'You are offline' }).waitFor();
    // The API is never served from the cache.
    const api = await page.evaluate(async () => {
      try {
        const res = await fetch('/api/joy-ratings');
        return res.status;
      } catch {
        return 'network error';
      }
    });
    expect(api).toBe('network error');

    await context.setOffline(false);
    await page.reload();
    await page.getByRole('heading', { name: 'Joy Insights' }).waitFor();
    await context.close();
  }, 120_000);
});
