import type { Browser, BrowserContext, Locator, Page, Route } from 'playwright-core';
import {
  animationsFinished,
  DESKTOP,
  describeViolations,
  PHONE_360,
  RunningServer,
  seriousViolations,
  signInThroughLanding,
  viewportShot,
  withAppAndBrowser,
} from './support';

/*
 * What lies over what, and where a page starts (the third browser pass's leftovers): a toast never covers a dialog's
 * controls, a tapped star's tooltip never stays up on a phone, the offline banner stays in view when scrolled without
 * covering the top bar, and leaving or deleting a group shows the list from its top. At 1280 and 360 px; screenshots
 * in test-artifacts/screenshots/overlays-*.
 */
const WIDTHS = [
  ['1280', DESKTOP],
  ['360', PHONE_360],
] as const;

type Viewport = { width: number; height: number };

/** A signed-in page, with a Content-Security-Policy that lets axe-core in (the app's own scripts are unchanged). */
async function signedIn(browser: Browser, server: RunningServer, email: string, viewport: Viewport, touch = false): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport, bypassCSP: true, ...(touch ? { hasTouch: true, isMobile: true } : {}) });
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  await signInThroughLanding(page, server.baseUrl, email, 'Olu');
  return { context, page };
}

/** Whether what a person sees at the middle of `control` is the control itself (nothing lies over it). */
function uncovered(control: Locator): Promise<boolean> {
  return control.evaluate((el) => {
    const box = el.getBoundingClientRect();
    const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
    return !!hit && (hit === el || el.contains(hit));
  });
}

const intersect = (a: DOMRect | { x: number; y: number; width: number; height: number }, b: typeof a) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/** The tooltips on screen (antd keeps hidden ones in the page with ant-tooltip-hidden). */
const shownTooltips = (page: Page) =>
  page.evaluate(() => [...document.querySelectorAll('.ant-tooltip:not(.ant-tooltip-hidden)')].map((t) => t.textContent ?? ''));

/** Fails if a tooltip shows at any moment of the next `ms` (a tap's would show 0.2 s after it, and stay). */
async function noTooltipFor(page: Page, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    expect(await shownTooltips(page)).toEqual([]);
    await page.waitForTimeout(100);
  }
}

/** Saves the Dashboard's first rating (the empty Dashboard's form), and waits for its toast to go. */
async function firstRating(page: Page, baseUrl: string, touch = false): Promise<void> {
  await page.goto(`${baseUrl}/dashboard`);
  await page.getByRole('heading', { name: 'Start Your Joy Journey' }).waitFor();
  const save = page.getByRole('button', { name: 'Save Rating' });
  await (touch ? save.tap() : save.click());
  await page.getByRole('heading', { name: 'Your Ratings' }).waitFor();
  // A pointer resting on a toast holds it (antd pauses its timer on hover).
  if (!touch) await page.mouse.move(1, 1);
  await page.waitForFunction(() => !document.querySelector('.ant-notification-notice'), undefined, { timeout: 15_000 });
}

describe('overlays and scrolling', () => {
  let server: RunningServer;
  let browser: Browser;

  withAppAndBrowser((s, b) => ([server, browser] = [s, b]));

  /** Whether the dialog's close button, Cancel and Save Changes are each uncovered (scrolled to in the dialog first). */
  async function expectControlsUncovered(dialog: Locator, toastStillUp: () => Promise<boolean>) {
    for (const name of ['Close', 'Cancel', 'Save Changes']) {
      const control = dialog.getByRole('button', { name, exact: true });
      await control.scrollIntoViewIfNeeded();
      expect(await toastStillUp()).toBe(true);
      expect({ name, uncovered: await uncovered(control) }).toEqual({ name, uncovered: true });
    }
  }

  it.each(WIDTHS)('a toast already up when a dialog opens goes under the dialog (%s px)', async (width, viewport) => {
    const { context, page } = await signedIn(browser, server, `toast.under.${width}@example.com`, viewport);
    await firstRating(page, server.baseUrl);
    // A second rating's toast, held up by the pointer resting on it (antd pauses a toast under the pointer).
    await page.getByRole('form', { name: 'Rate your joy' }).getByRole('button', { name: 'Save Rating' }).click();
    const toast = page.locator('.ant-notification-notice').filter({ hasText: 'Rating Saved!' });
    await toast.waitFor();
    await animationsFinished(page);
    const box = (await toast.boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    // The dialog opened from the keyboard, the pointer still where it was.
    await page.getByRole('button', { name: /^Edit rating of / }).first().focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: /^Edit rating of / });
    await dialog.waitFor();
    await animationsFinished(page);
    await viewportShot(page, `overlays-toast-under-dialog-${width}`);
    await expectControlsUncovered(dialog, async () => (await toast.count()) === 1);
    await context.close();
  }, 120_000);

  it.each(WIDTHS)('a toast that comes while a dialog is open shows in the dialog, covering none of its controls (%s px)', async (width, viewport) => {
    const { context, page } = await signedIn(browser, server, `toast.in.${width}@example.com`, viewport);
    await firstRating(page, server.baseUrl);
    // Saving the correction fails, after a moment: its error toast comes while the dialog stays open.
    const failPut = async (route: Route) => {
      if (route.request().method() !== 'PUT') return route.continue();
      await new Promise((resolve) => setTimeout(resolve, 400));
      await route.fulfill({ status: 500, contentType: 'application/json', body: JSON.stringify({ statusCode: 500, message: 'Internal server error' }) });
    };
    await page.route(/\/api\/joy-ratings\/[^/?]+$/, failPut);
    await page.getByRole('button', { name: /^Edit rating of / }).first().click();
    const dialog = page.getByRole('dialog', { name: /^Edit rating of / });
    await dialog.waitFor();
    await animationsFinished(page);
    // While it saves, the button says so without moving (a shorter label let its row unwrap: the dialog jumped a line,
    // and the toast that came next was scrolled to where the dialog's end had been).
    await dialog.getByRole('button', { name: 'Save Changes' }).scrollIntoViewIfNeeded();
    await animationsFinished(page);
    const saveBox = await dialog.getByRole('button', { name: 'Save Changes' }).boundingBox();
    await dialog.getByRole('button', { name: 'Save Changes' }).click();
    expect(await dialog.getByRole('button', { name: 'Saving...' }).boundingBox()).toEqual(saveBox);
    // In the dialog, read out as an alert, scrolled into view; none in the corner.
    const message = dialog.getByRole('alert').filter({ hasText: 'Failed to save rating. Please try again.' });
    await message.waitFor();
    await animationsFinished(page);
    expect(await page.locator('.ant-notification-notice').count()).toBe(0);
    // Under the form and its buttons, and (once the dialog has scrolled to it) wholly in view with the button just pressed.
    const save = dialog.getByRole('button', { name: 'Save Changes' });
    await page.waitForFunction(
      ([alert, button]) => {
        const [a, b] = [alert!.getBoundingClientRect(), button!.getBoundingClientRect()];
        return a.top >= b.bottom && b.top >= 0 && a.bottom <= window.innerHeight;
      },
      [await message.elementHandle(), await save.elementHandle()] as const,
      { timeout: 5_000 },
    );
    expect(await uncovered(message)).toBe(true);
    await viewportShot(page, `overlays-toast-in-dialog-${width}`);
    await expectControlsUncovered(dialog, async () => (await message.count()) === 1);

    // Saved this time: the dialog closes, and "Rating Updated" goes on in its usual place.
    await page.unroute(/\/api\/joy-ratings\/[^/?]+$/, failPut);
    await dialog.getByRole('button', { name: 'Save Changes' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.locator('.ant-notification-notice').filter({ hasText: 'Rating Updated' }).waitFor();
    await context.close();
  }, 120_000);

  it('one toast at a time: F8 reaches it, a swipe right of over 50 px dismisses it, and a toast in a dialog takes the corner one away (1280 px)', async () => {
    const { context, page } = await signedIn(browser, server, 'toast.controls@example.com', DESKTOP);
    await firstRating(page, server.baseUrl);
    await page.getByRole('form', { name: 'Rate your joy' }).getByRole('button', { name: 'Save Rating' }).click();
    const toast = page.locator('.ant-notification-notice').filter({ hasText: 'Rating Saved!' });
    await toast.waitFor();
    await animationsFinished(page);

    // F8 moves the focus to the toast (its close button is the next Tab).
    await page.keyboard.press('F8');
    expect(await page.evaluate(() => document.activeElement?.closest('.ant-notification-notice')?.textContent ?? '')).toContain('Rating Saved!');

    // A swipe of 30 px springs back; the pointer resting on the toast holds it meanwhile.
    const box = (await toast.boundingBox())!;
    const [x, y] = [box.x + 40, box.y + box.height / 2];
    const swipe = async (dx: number) => {
      await page.mouse.move(x, y);
      await page.mouse.down();
      await page.mouse.move(x + dx, y, { steps: 6 });
      await page.mouse.up();
    };
    await swipe(30);
    expect(await toast.count()).toBe(1);
    expect(await toast.evaluate((el) => (el as HTMLElement).style.transform)).toBe('');
    await swipe(80);
    await toast.waitFor({ state: 'detached', timeout: 3_000 });

    // A toast up in the corner, then one from a dialog (a correction that fails): only the dialog's stays.
    await page.getByRole('form', { name: 'Rate your joy' }).getByRole('button', { name: 'Save Rating' }).click();
    await toast.waitFor();
    const held = (await toast.boundingBox())!;
    await page.mouse.move(held.x + held.width / 2, held.y + held.height / 2);
    await page.route(/\/api\/joy-ratings\/[^/?]+$/, (route) =>
      route.request().method() === 'PUT'
        ? route.fulfill({ status: 500, contentType: 'application/json', body: JSON.stringify({ statusCode: 500, message: 'Internal server error' }) })
        : route.continue(),
    );
    await page.getByRole('button', { name: /^Edit rating of / }).first().focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: /^Edit rating of / });
    await dialog.waitFor();
    await animationsFinished(page);
    expect(await toast.count()).toBe(1);
    await dialog.getByRole('button', { name: 'Save Changes' }).focus();
    await page.keyboard.press('Enter');
    await dialog.getByRole('alert').filter({ hasText: 'Failed to save rating. Please try again.' }).waitFor();
    await toast.waitFor({ state: 'detached', timeout: 3_000 });
    await viewportShot(page, 'overlays-one-toast-1280');
    await context.close();
  }, 120_000);

  it("on a phone, a tapped star's tooltip does not stay up, over the page or over the dialog the next tap opens (360 px, touch)", async () => {
    const { context, page } = await signedIn(browser, server, 'tooltip.phone@example.com', PHONE_360, true);
    await firstRating(page, server.baseUrl, true);
    const form = page.getByRole('form', { name: 'Rate your joy' });
    await form.getByTestId('joy-star-4').tap();
    expect(await form.getByLabel('Joy: 4 stars, High').isChecked()).toBe(true);
    await noTooltipFor(page, 1_000);

    await page.getByRole('button', { name: /^Edit rating of / }).first().tap();
    const dialog = page.getByRole('dialog', { name: /^Edit rating of / });
    await dialog.waitFor();
    await animationsFinished(page);
    await noTooltipFor(page, 1_000);
    await dialog.getByTestId('joy-star-2').tap();
    await dialog.getByTestId('overall-score').filter({ hasText: /^2\.8$/ }).waitFor();
    await noTooltipFor(page, 1_000);
    await viewportShot(page, 'overlays-star-tap-dialog-360');
    await context.close();
  }, 120_000);

  it('with a mouse, a star still shows its band word, and it goes when the pointer leaves (1280 px)', async () => {
    const { context, page } = await signedIn(browser, server, 'tooltip.mouse@example.com', DESKTOP);
    await firstRating(page, server.baseUrl);
    const form = page.getByRole('form', { name: 'Rate your joy' });
    await form.getByTestId('joy-star-4').hover();
    await page.waitForFunction(() => [...document.querySelectorAll('.ant-tooltip:not(.ant-tooltip-hidden)')].some((t) => t.textContent === '4 – High'));
    await page.getByRole('button', { name: /^Edit rating of / }).first().click();
    await page.getByRole('dialog', { name: /^Edit rating of / }).waitFor();
    await page.waitForFunction(() => document.querySelectorAll('.ant-tooltip:not(.ant-tooltip-hidden)').length === 0);
    await context.close();
  }, 120_000);

  it.each(WIDTHS)('the offline banner stays in view when scrolled, and covers nothing of the top bar (%s px)', async (width, viewport) => {
    const { context, page } = await signedIn(browser, server, `offline.${width}@example.com`, viewport);
    await firstRating(page, server.baseUrl);
    await context.setOffline(true);
    const banner = page.getByRole('alert').filter({ hasText: 'You are offline.' });
    await banner.waitFor();
    await page.evaluate(() => window.scrollTo({ top: document.documentElement.scrollHeight, behavior: 'instant' }));
    await page.waitForFunction(() => window.scrollY > 300);
    await animationsFinished(page);
    await viewportShot(page, `overlays-offline-scrolled-${width}`);

    const bannerBox = (await banner.boundingBox())!;
    // At the top of the screen, whole.
    expect(bannerBox.y).toBeGreaterThanOrEqual(0);
    expect(bannerBox.y).toBeLessThan(1);
    expect(bannerBox.y + bannerBox.height).toBeLessThanOrEqual(viewport.height);
    expect(await uncovered(banner)).toBe(true);
    // The bar right under it, and each of its controls (the phone's menu button) clear of it and uncovered.
    const bar = page.locator('header.topbar');
    const barBox = (await bar.boundingBox())!;
    expect(Math.abs(barBox.y - (bannerBox.y + bannerBox.height))).toBeLessThan(1);
    const controls = bar.locator('a:visible, button:visible');
    expect(await controls.count()).toBeGreaterThan(0);
    for (const control of await controls.all()) {
      const box = (await control.boundingBox())!;
      expect({ control: await control.getAttribute('aria-label') ?? (await control.textContent()), overlaps: intersect(box, bannerBox) }).toEqual({
        control: await control.getAttribute('aria-label') ?? (await control.textContent()),
        overlaps: false,
      });
      expect(await uncovered(control)).toBe(true);
    }
    if (width === '360') {
      // The phone's menu opens with a tap, and its drawer lies over the banner.
      await page.getByRole('button', { name: 'Open menu' }).click();
      await page.getByRole('dialog', { name: 'Menu' }).waitFor();
      await animationsFinished(page);
      await viewportShot(page, 'overlays-offline-menu-360');
      await page.keyboard.press('Escape');
      // Closed, not closing: mid-fade its links' colours are blends that no one reads (axe measured them at 4.2:1).
      await page.getByRole('dialog', { name: 'Menu' }).waitFor({ state: 'hidden' });
      await animationsFinished(page);
    }
    expect(describeViolations(`offline ${width}`, await seriousViolations(page))).toBe('');
    await context.setOffline(false);
    await banner.waitFor({ state: 'detached' });
    // Back online, the bar is at the very top again.
    await page.waitForFunction(() => Math.abs(document.querySelector('header.topbar')!.getBoundingClientRect().top) < 1);
    await context.close();
  }, 120_000);

  it("offline, a toast still shows under the top bar, pushed down by the banner, not over the bar's controls (1280 px)", async () => {
    const { context, page } = await signedIn(browser, server, 'offline.toast@example.com', DESKTOP);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.baseUrl });
    const status = await page.evaluate(() =>
      fetch('/api/groups', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'Tea Club' }) }).then((r) => r.status),
    );
    expect(status).toBe(201);
    await page.goto(`${server.baseUrl}/groups`);
    await page.getByRole('button', { name: 'View Tea Club' }).click();
    await page.getByRole('heading', { level: 1, name: 'Tea Club' }).waitFor();
    await context.setOffline(true);
    const banner = page.getByRole('alert').filter({ hasText: 'You are offline.' });
    await banner.waitFor();
    const toggle = page.getByRole('button', { name: /Invite Code/ });
    if ((await toggle.getAttribute('aria-expanded')) === 'false') await toggle.click();
    await page.getByRole('button', { name: 'Copy', exact: true }).click();
    const toast = page.locator('.ant-notification-notice').filter({ hasText: 'Copied!' });
    await toast.waitFor();
    await animationsFinished(page);
    await viewportShot(page, 'overlays-offline-toast-1280');
    const bar = (await page.locator('header.topbar').boundingBox())!;
    const box = (await toast.boundingBox())!;
    expect(box.y).toBeGreaterThanOrEqual(bar.y + bar.height);
    await context.setOffline(false);
    await context.close();
  }, 120_000);

  it('leaving a group, or deleting one, shows the group list from its top (360 px)', async () => {
    const { context, page } = await signedIn(browser, server, 'leaver@example.com', PHONE_360);
    // Three groups (the free plan's most): two are left on the list, which is then longer than the screen.
    const create = async (name: string) => {
      const status = await page.evaluate(
        (n) => fetch('/api/groups', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name: n, description: `All about ${n}.` }) }).then((r) => r.status),
        name,
      );
      expect(status).toBe(201);
    };
    for (const name of ['Book Club', 'Climbing Friends', 'Family']) await create(name);
    const list = page.getByRole('list', { name: 'Your groups' });

    for (const [group, action] of [
      ['Book Club', 'Leave group'],
      ['Climbing Friends', 'Delete group'],
    ] as const) {
      await page.goto(`${server.baseUrl}/groups`);
      await page.getByRole('button', { name: `View ${group}` }).click();
      await page.getByRole('heading', { level: 1, name: group }).waitFor();
      // Down at the group's own buttons, at the end of its page.
      await page.getByRole('button', { name: action }).waitFor();
      await page.evaluate(() => window.scrollTo({ top: document.documentElement.scrollHeight, behavior: 'instant' }));
      await page.waitForFunction(() => window.scrollY > 200);
      await page.getByRole('button', { name: action }).click();
      await page.locator('.ant-popconfirm').getByRole('button', { name: action }).click();
      await list.waitFor();
      await page.getByRole('button', { name: `View ${group}` }).waitFor({ state: 'detached' });
      // The list is long enough to be scrolled (so staying down would show): it is at its top.
      expect(await page.evaluate(() => document.documentElement.scrollHeight - window.innerHeight)).toBeGreaterThan(100);
      await page.waitForFunction(() => window.scrollY === 0, undefined, { timeout: 5_000 });
      await viewportShot(page, `overlays-groups-after-${action.split(' ')[0].toLowerCase()}-360`);
      if (group === 'Book Club') await create('Running Club');
    }
    await context.close();
  }, 120_000);
});
