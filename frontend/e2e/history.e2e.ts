import type { Browser, Page } from 'playwright-core';
import { animationsFinished, DESKTOP, describeViolations, RunningServer, screenshot, seriousViolations, signInThroughLanding, viewportShot, withAppAndBrowser } from './support';

/*
 * A missed day with a private note (issue 19 items 3–5): on Home, "Rate an earlier day" with a date and a note;
 * then /history shows the day in the year's calendar (its text alternative lists it), the streaks, and the rating
 * with its note in the list; a click on the day's cell, or See a day, opens that day's ratings. Screenshots at 1280
 * and 360 px (test-artifacts/screenshots/history-*).
 */
const NARROW = { width: 360, height: 780 };
const NOTE = 'Walked the cliffs with Ines; the sea was silver';

async function newPage(browser: Browser, viewport: { width: number; height: number }) {
  const context = await browser.newContext({ viewport, bypassCSP: true });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  return { context, page };
}

/** The browser's local day `n` days ago, YYYY-MM-DD (the person's zone: set from the browser at first sign-in). */
const localDay = (page: Page, n: number) =>
  page.evaluate((back) => {
    const d = new Date(Date.now() - back * 86_400_000);
    return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
  }, n);

async function rateEarlierDayWithNote(page: Page, day: string) {
  const form = page.getByRole('form', { name: 'Rate your joy' });
  await form.getByLabel('Joy: 5 stars, Very High').check({ force: true });
  await form.getByRole('checkbox', { name: 'Rate an earlier day' }).check();
  await form.getByLabel('Day', { exact: true }).fill(day);
  // The card says which day is being rated, and says today again once it is saved.
  await page.getByRole('heading', { name: /^Rate Your Joy for [A-Z][a-z]{2} \d{1,2}, \d{4}$/ }).waitFor();
  await form.getByLabel(/^Note/).fill(NOTE);
  await form.getByRole('button', { name: 'Save Rating' }).click();
  await page.getByText('Rating Saved!').first().waitFor();
  await page.getByRole('heading', { name: 'Rate Your Joy Today' }).waitFor();
}

/**
 * Clicks a day's cell of the year's calendar (calendarOption.ts: Monday first, 40 px from the left and 16 from the
 * right; wide, the weeks across and the weekdays down between 30 px from the top and 50 from the bottom; compact,
 * the weekdays across and the weeks down between 40 and 60).
 */
async function clickCalendarDay(page: Page, day: string, compact: boolean) {
  const chart = page.locator('.history-calendar__chart [data-testid="echart"]');
  const box = (await chart.boundingBox())!;
  const [year, month, date] = day.split('-').map(Number);
  const jan1 = new Date(year, 0, 1);
  const offset = (jan1.getDay() + 6) % 7; // Monday 0
  const dayIndex = Math.round((new Date(year, month - 1, date).getTime() - jan1.getTime()) / 86_400_000);
  const week = Math.floor((dayIndex + offset) / 7);
  const weekday = (dayIndex + offset) % 7;
  const weeks = Math.ceil(((new Date(year + 1, 0, 1).getTime() - jan1.getTime()) / 86_400_000 + offset) / 7);
  const [x, y] = compact
    ? [40 + (weekday + 0.5) * ((box.width - 56) / 7), 40 + (week + 0.5) * ((box.height - 100) / weeks)]
    : [40 + (week + 0.5) * ((box.width - 56) / weeks), 30 + (weekday + 0.5) * ((box.height - 80) / 7)];
  // At a position in the chart: scrolled into view first (the phone's calendar is taller than the screen).
  await chart.click({ position: { x, y } });
}

describe('rating a missed day with a note, and seeing it on the History page', () => {
  let server: RunningServer;
  let browser: Browser;

  withAppAndBrowser((s, b) => ([server, browser] = [s, b]));

  for (const [label, viewport] of [['1280', DESKTOP], ['360', NARROW]] as const) {
    it(`rates two days ago with a note, then finds it in the calendar and the list (${label} px)`, async () => {
      const { page, context } = await newPage(browser, viewport);
      await signInThroughLanding(page, server.baseUrl, `hana-${label}@example.com`, 'Hana');
      await page.getByRole('form', { name: 'Rate your joy' }).waitFor();
      const day = await localDay(page, 2);
      await rateEarlierDayWithNote(page, day);
      await screenshot(page, `history-home-${label}`);

      await page.goto(`${server.baseUrl}/history`);
      await page.getByRole('heading', { name: 'Your History' }).waitFor();
      // The calendar's text alternative lists the day; the chart is drawn.
      const table = page.getByRole('table', { name: /^Days rated in / });
      await table.waitFor({ state: 'attached' });
      expect(await table.locator('tbody tr').count()).toBeGreaterThanOrEqual(day.startsWith(String(new Date().getFullYear())) ? 1 : 0);
      await page.locator('.history-calendar__chart [data-rendered="true"], .history-calendar__chart[data-rendered="true"]').first().waitFor({ state: 'attached' });
      // Two days ago alone: no current streak (neither today nor yesterday is rated), a longest of one day.
      await page.getByTestId('card-current-streak').getByText('0 days').waitFor();
      await page.getByTestId('card-longest-streak').getByText('1 day').waitFor();
      const item = page.getByTestId('rating-history-item').first();
      await item.getByTestId('rating-note').getByText(NOTE).waitFor();
      await item.getByText(/^For /).waitFor();
      expect(describeViolations(`history ${label}`, await seriousViolations(page))).toBe('');
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      await screenshot(page, `history-${label}`);

      // The day's cell opens that day's ratings with the note (the day is this year's but on January 1 and 2).
      if (day.startsWith(String(new Date().getFullYear()))) {
        await clickCalendarDay(page, day, label === '360');
        const dialog = page.getByRole('dialog');
        await dialog.getByRole('heading', { name: '1 rating for this day' }).waitFor();
        await dialog.getByTestId('rating-note').getByText(NOTE).waitFor();
        // Looked at once the dialog has faded in (mid-way its colours are paler than they will be).
        await animationsFinished(page);
        expect(describeViolations(`history day ${label}`, await seriousViolations(page))).toBe('');
        await viewportShot(page, `history-day-${label}`);
        await dialog.getByRole('button', { name: 'Close' }).click();
        await dialog.waitFor({ state: 'hidden' });
      }
      // A blank day that can still be rated opens too, to be rated (a review, 11-27: its cell took no click).
      const yesterday = await localDay(page, 1);
      if (yesterday.startsWith(String(new Date().getFullYear()))) {
        await clickCalendarDay(page, yesterday, label === '360');
        const dialog = page.getByRole('dialog');
        await dialog.getByText(/^No ratings for /).waitFor();
        await dialog.getByRole('button', { name: 'Close' }).click();
        await dialog.waitFor({ state: 'hidden' });
      }
      // Without a pointer: See a day. Yesterday has no rating.
      await page.getByLabel('See a day').fill(await localDay(page, 1));
      await page.getByRole('button', { name: 'Show', exact: true }).click();
      await page.getByRole('dialog').getByText(/^No ratings for /).waitFor();
      await context.close();
    });
  }
});
