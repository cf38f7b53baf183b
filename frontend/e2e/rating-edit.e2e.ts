import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { animationsFinished, artifacts, DESKTOP, describeViolations, RunningServer, screenshot, seriousViolations, signInThroughLanding, withAppAndBrowser } from './support';

/*
 * Correcting and deleting a rating from the history list (issue 18): Edit opens the rating form prefilled and saves
 * with PUT, Delete asks first and withdraws the rating; the Dashboard's cards follow at once. Screenshots at 1280 and
 * 360 px (test-artifacts/screenshots/rating-edit-*).
 */
const NARROW = { width: 360, height: 780 };

/** A page whose Content-Security-Policy lets the test inject axe-core (the app's own scripts are unchanged). */
async function newPage(browser: Browser, viewport: { width: number; height: number }) {
  const context = await browser.newContext({ viewport, bypassCSP: true });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  return { context, page };
}

async function expectAccessible(page: Page, where: string) {
  expect(describeViolations(where, await seriousViolations(page))).toBe('');
  // Nothing wider than the screen (no sideways scrolling on a phone).
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
}

/** The screen as the person sees it (a dialog is fixed to the screen, so a full-page shot would bury it). */
async function screenShot(page: Page, name: string) {
  await page.screenshot({ path: join(artifacts, `${name}.png`), animations: 'disabled' });
}

/** Waits until the toasts (5 s each) have gone, so that they hide nothing of a screenshot. */
async function dismissToasts(page: Page) {
  // A pointer resting on a toast holds it (antd pauses its timer on hover); on a phone it shows at the bottom, where
  // the last click was.
  await page.mouse.move(1, 1);
  await page.waitForFunction(() => !document.querySelector('.ant-notification-notice'), undefined, { timeout: 10_000 });
}

/** Clicks a star of the dialog's form, then moves the pointer away so that its tooltip does not stay over the form. */
async function pickStar(page: Page, dialog: Locator, testId: string) {
  // Once the dialog has stopped moving (a click during its opening zoom can land beside the star on a busy machine).
  await animationsFinished(page);
  await dialog.getByTestId(testId).click();
  await page.mouse.move(1, 1);
  await page.waitForFunction(() => Array.from(document.querySelectorAll('.ant-tooltip')).every((t) => t.classList.contains('ant-tooltip-hidden')), undefined, { timeout: 5_000 });
}

const overall = (page: Page) => page.getByTestId('card-overall');
const historyItems = (page: Page) => page.getByTestId('rating-history-item');

async function rate(page: Page, stars: Record<string, string>) {
  const form = page.getByRole('form', { name: 'Rate your joy' });
  for (const [factor, label] of Object.entries(stars)) {
    // The star a person sees and clicks (its radio is visually hidden), then the radio it stands for is picked.
    await form.getByTestId(`${factor.toLowerCase()}-star-${label.split(' ')[0]}`).click();
    expect(await form.getByLabel(`${factor}: ${label}`).isChecked()).toBe(true);
  }
  const before = await historyItems(page).count();
  await form.getByRole('button', { name: 'Save Rating' }).click();
  await page.getByText('Rating Saved!').first().waitFor();
  await historyItems(page).nth(before).waitFor();
  // The button was disabled while saving (a browser drops the focus of a disabled button): the focus is back on it
  // (from the second rating on: the first one's form, in the empty Dashboard, gives way to the charts).
  // innerText: what the button shows (its busy label, hidden, is in its textContent too).
  if (before > 0) await page.waitForFunction(() => (document.activeElement as HTMLElement | null)?.innerText?.trim() === 'Save Rating', undefined, { timeout: 5_000 });
}

describe('a person corrects and deletes their ratings from the history list', () => {
  let server: RunningServer;
  let browser: Browser;

  withAppAndBrowser((s, b) => ([server, browser] = [s, b]));

  it('edits a rating, deletes one, and the Dashboard follows (1280 px)', async () => {
    const { page, context } = await newPage(browser, DESKTOP);
    await signInThroughLanding(page, server.baseUrl, 'ida@example.com', 'Ida');
    await page.goto(`${server.baseUrl}/dashboard`);
    await page.getByRole('heading', { name: 'Start Your Joy Journey' }).waitFor();
    await rate(page, {}); // 3.0
    await page.getByRole('heading', { name: 'Your Ratings' }).waitFor();
    await rate(page, { Health: '5 stars, Very High', Joy: '5 stars, Very High' }); // 3.8
    await overall(page).getByText('3.8').waitFor();
    await expect(historyItems(page).count()).resolves.toBe(2);
    await page.evaluate(() => window.scrollTo(0, 0));
    await screenshot(page, 'rating-edit-dashboard-1280');

    // Edit the newest: the form starts at its scores.
    await dismissToasts(page);
    await page.getByRole('button', { name: /^Edit rating of / }).first().click();
    const dialog = page.getByRole('dialog', { name: /^Edit rating of / });
    await dialog.waitFor();
    expect(await dialog.getByLabel('Health: 5 stars, Very High').isChecked()).toBe(true);
    expect(await dialog.getByLabel('Joy: 5 stars, Very High').isChecked()).toBe(true);
    await expect(dialog.getByTestId('overall-score').textContent()).resolves.toBe('3.8');
    await pickStar(page, dialog, 'joy-star-2');
    await dialog.getByTestId('overall-score').filter({ hasText: /^3\.2$/ }).waitFor();
    await screenShot(page, 'rating-edit-dialog-1280');
    await expectAccessible(page, 'edit dialog 1280');
    // Tab goes round inside the dialog: from its last button to its first (it left the page for one press).
    await dialog.getByRole('button', { name: 'Save Changes' }).focus();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => [document.activeElement?.getAttribute('aria-label'), !!document.activeElement?.closest('.ant-modal')])).toEqual(['Close', true]);
    await page.keyboard.press('Shift+Tab');
    expect(await page.evaluate(() => (document.activeElement as HTMLElement | null)?.innerText?.trim())).toBe('Save Changes');
    await dialog.getByRole('button', { name: 'Save Changes' }).click();
    await page.getByText('Rating Updated').first().waitFor();
    await dialog.waitFor({ state: 'hidden' });
    // Overall Joy and the trend against the older 3.0 show the corrected rating; the list too; still two ratings.
    await overall(page).getByText('3.2').waitFor();
    await page.getByTestId('card-trend').getByText('+0.2').waitFor();
    await historyItems(page).first().getByText('3.2').waitFor();
    await expect(historyItems(page).count()).resolves.toBe(2);

    // Delete the newest, with the keyboard: asked first (focus moves into the question, on "Keep it", and Tab
    // reaches Delete next, not the next row), then it is gone and the older one is the latest.
    await dismissToasts(page);
    await page.getByRole('button', { name: /^Delete rating of / }).first().focus();
    await page.keyboard.press('Enter');
    const confirm = page.locator('.ant-popconfirm');
    await confirm.getByText('Delete this rating?').waitFor();
    const focused = () => page.evaluate(() => document.activeElement?.textContent?.trim());
    for (const deadline = Date.now() + 5_000; (await focused()) !== 'Keep it'; ) {
      if (Date.now() > deadline) throw new Error(`focus stayed on "${await focused()}"`);
    }
    await screenShot(page, 'rating-edit-delete-confirm-1280');
    // Escape: closed, the focus back on the row's Delete; opened again: the focus in the question again.
    await page.keyboard.press('Escape');
    const focusedLabel = () => page.evaluate(() => document.activeElement?.getAttribute('aria-label'));
    for (const deadline = Date.now() + 5_000; !(await focusedLabel())?.startsWith('Delete rating of'); ) {
      if (Date.now() > deadline) throw new Error(`after Escape the focus is on "${await focusedLabel()}"`);
    }
    await page.keyboard.press('Enter');
    for (const deadline = Date.now() + 5_000; (await focused()) !== 'Keep it'; ) {
      if (Date.now() > deadline) throw new Error(`reopened, focus stayed on "${await focused()}"`);
    }
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('Delete');
    await page.keyboard.press('Enter');
    await page.getByText('Rating Deleted').first().waitFor();
    await historyItems(page).nth(1).waitFor({ state: 'detached' });
    await expect(historyItems(page).count()).resolves.toBe(1);
    // Its row is gone with its button: the focus is on the list it was in, not dropped to the page.
    await page.waitForFunction(() => document.activeElement !== document.body && !!document.activeElement?.querySelector('[data-testid="rating-history-item"]'), undefined, { timeout: 5_000 });
    await overall(page).getByText('3.0').waitFor();
    await page.getByTestId('card-trend').getByText('N/A').waitFor();
    await page.evaluate(() => window.scrollTo(0, 0));
    await screenshot(page, 'rating-edit-after-delete-1280');
    await expectAccessible(page, 'dashboard after delete 1280');

    // After a reload (from the server, not the page's memory): one rating, at 3.0.
    await page.reload();
    await overall(page).getByText('3.0').waitFor();
    await expect(historyItems(page).count()).resolves.toBe(1);

    // Insights shows the same list with the same buttons.
    await page.goto(`${server.baseUrl}/insights`);
    await page.getByRole('heading', { name: /^Your Ratings/ }).waitFor();
    await page.getByRole('button', { name: /^Edit rating of / }).waitFor();
    await page.evaluate(() => window.scrollTo(0, 0));
    await screenshot(page, 'rating-edit-insights-1280');
    await context.close();
  });

  it('edits and deletes on a phone (360 px) without sideways scrolling', async () => {
    const { page, context } = await newPage(browser, NARROW);
    await signInThroughLanding(page, server.baseUrl, 'jo@example.com', 'Jo');
    await page.goto(`${server.baseUrl}/dashboard`);
    await page.getByRole('heading', { name: 'Start Your Joy Journey' }).waitFor();
    await rate(page, { Relationships: '4 stars, High' }); // 3.2
    await rate(page, { Purpose: '1 star, Very Low' }); // 2.6
    await overall(page).getByText('2.6').waitFor();
    await historyItems(page).nth(1).waitFor();
    await historyItems(page).first().scrollIntoViewIfNeeded();
    await screenshot(page, 'rating-edit-dashboard-360');
    await expectAccessible(page, 'dashboard 360');

    await dismissToasts(page);
    await page.getByRole('button', { name: /^Edit rating of / }).first().click();
    const dialog = page.getByRole('dialog', { name: /^Edit rating of / });
    await dialog.waitFor();
    await screenShot(page, 'rating-edit-dialog-360');
    await pickStar(page, dialog, 'purpose-star-4');
    expect(await dialog.getByLabel('Purpose: 4 stars, High').isChecked()).toBe(true);
    await expectAccessible(page, 'edit dialog 360');
    await dialog.getByRole('button', { name: 'Save Changes' }).click();
    await page.getByText('Rating Updated').first().waitFor();
    await overall(page).getByText('3.2').waitFor();

    await dismissToasts(page);
    await page.getByRole('button', { name: /^Delete rating of / }).last().click();
    const confirm = page.locator('.ant-popconfirm');
    await confirm.getByText('Delete this rating?').waitFor();
    await screenShot(page, 'rating-edit-delete-confirm-360');
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await page.getByText('Rating Deleted').first().waitFor();
    await historyItems(page).nth(1).waitFor({ state: 'detached' });
    await expect(historyItems(page).count()).resolves.toBe(1);
    await overall(page).getByText('3.2').waitFor();
    await expectAccessible(page, 'dashboard after delete 360');
    await page.evaluate(() => window.scrollTo(0, 0));
    await screenshot(page, 'rating-edit-after-delete-360');

    // On Insights: the same list; an edit there moves the 7-day average at once (3.2 → 3.6).
    await page.goto(`${server.baseUrl}/insights`);
    await page.getByTestId('card-seven-day').getByText('3.2', { exact: true }).waitFor();
    await page.getByRole('heading', { name: /^Your Ratings/ }).waitFor();
    await page.evaluate(() => window.scrollTo(0, 0));
    await screenshot(page, 'rating-edit-insights-360');
    await expectAccessible(page, 'insights 360');
    await dismissToasts(page);
    await page.getByRole('button', { name: /^Edit rating of / }).click();
    const onInsights = page.getByRole('dialog', { name: /^Edit rating of / });
    await pickStar(page, onInsights, 'joy-star-5');
    await onInsights.getByRole('button', { name: 'Save Changes' }).click();
    await page.getByText('Rating Updated').first().waitFor();
    await page.getByTestId('card-seven-day').getByText('3.6', { exact: true }).waitFor();
    await context.close();
  });
});
