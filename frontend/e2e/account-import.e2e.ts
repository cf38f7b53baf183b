import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { DESKTOP, newPage, PHONE_360, RunningServer, screenshot, signInThroughLanding, withAppAndBrowser } from './support';


async function rateOnHome(page: Page, stars: number, label: string) {
  await page.getByRole('heading', { name: 'Rate Your Joy Today' }).waitFor();
  for (const factor of ['Relationships', 'Health', 'Purpose', 'Growth', 'Joy']) {
    await page.getByLabel(`${factor}: ${stars} ${stars === 1 ? 'star' : 'stars'}, ${label}`).check({ force: true });
  }
  await page.getByRole('button', { name: 'Save Rating' }).click();
  await page.getByText('Rating Saved!').first().waitFor();
}

async function chooseFile(page: Page, path: string) {
  const card = page.locator('.ant-card').filter({ has: page.getByRole('heading', { name: 'Import ratings' }) });
  await card.locator('input[type="file"]').setInputFiles(path);
  return card;
}

describe('account: moving ratings with the JSON export and Import ratings', () => {
  let server: RunningServer;
  let browser: Browser;

  withAppAndBrowser((s, b) => ([server, browser] = [s, b]));

  it('downloads one account’s export, imports it into another from a phone, and a second import adds nothing', async () => {
    // ---- Ola rates twice and downloads her JSON export ---------------------------------------------------
    const ola = await newPage(browser, DESKTOP);
    ola.page.setDefaultTimeout(30_000);
    await signInThroughLanding(ola.page, server.baseUrl, 'ola@import.example', 'Ola');
    await rateOnHome(ola.page, 4, 'High');
    await ola.page.reload();
    await rateOnHome(ola.page, 2, 'Low');
    await ola.page.goto(`${server.baseUrl}/account`);
    const [download] = await Promise.all([ola.page.waitForEvent('download'), ola.page.getByRole('button', { name: 'Download JSON' }).click()]);
    const file = join(tmpdir(), `joy-import-e2e-${process.pid}.json`);
    writeFileSync(file, readFileSync((await download.path())!));
    const exported = JSON.parse(readFileSync(file, 'utf8')) as { ratings: { createdAt: string; overallScore: number }[] };
    expect(exported.ratings.map((r) => r.overallScore)).toEqual([4, 2]);

    // ---- Pia (360 px phone) imports the file on her Account page ----------------------------------------
    const pia = await newPage(browser, PHONE_360);
    pia.page.setDefaultTimeout(30_000);
    await signInThroughLanding(pia.page, server.baseUrl, 'pia@import.example', 'Pia');
    await pia.page.goto(`${server.baseUrl}/account`);
    await pia.page.getByRole('heading', { name: 'Import ratings' }).waitFor();
    let card = await chooseFile(pia.page, file);
    await card.getByText('2 ratings imported, 0 already here').waitFor();
    await screenshot(pia.page, 'account-import-done-360');
    // Her ratings are there, at their original times, newest first.
    const ratings = (await (await pia.page.request.get(`${server.baseUrl}/api/joy-ratings`)).json()) as { createdAt: string; overallScore: number }[];
    expect(ratings.map((r) => [r.createdAt, r.overallScore])).toEqual([...exported.ratings].reverse().map((r) => [r.createdAt, r.overallScore]));
    await pia.page.goto(`${server.baseUrl}/dashboard`);
    await pia.page.getByRole('heading', { name: 'Your Joy Dashboard', level: 1 }).waitFor();
    await pia.page.getByRole('heading', { name: 'Current PERMA Scores' }).waitFor();
    await screenshot(pia.page, 'account-import-dashboard-360');

    // The same file again: nothing added.
    await pia.page.goto(`${server.baseUrl}/account`);
    card = await chooseFile(pia.page, file);
    await card.getByText('0 ratings imported, 2 already here').waitFor();
    expect(((await (await pia.page.request.get(`${server.baseUrl}/api/joy-ratings`)).json()) as unknown[]).length).toBe(2);

    // ---- A damaged file on a desktop: refused, naming the field, nothing added --------------------------
    const piaDesktop = await newPage(browser, DESKTOP);
    await piaDesktop.context.addCookies(await pia.context.cookies());
    const damaged = join(tmpdir(), `joy-import-e2e-damaged-${process.pid}.json`);
    const broken = JSON.parse(readFileSync(file, 'utf8'));
    broken.ratings[1].health = 9;
    writeFileSync(damaged, JSON.stringify(broken));
    await piaDesktop.page.goto(`${server.baseUrl}/account`);
    card = await chooseFile(piaDesktop.page, damaged);
    await card.getByText('Nothing was imported').waitFor();
    // Counted from 1, as a person counts the ratings of a file.
    await card.getByText('Rating 2 in the file: health must be a whole number from 1 to 5').waitFor();
    await screenshot(piaDesktop.page, 'account-import-refused-1280');
    expect(((await (await pia.page.request.get(`${server.baseUrl}/api/joy-ratings`)).json()) as unknown[]).length).toBe(2);

    // And Ola's own file back into her account adds nothing either.
    await ola.page.goto(`${server.baseUrl}/account`);
    card = await chooseFile(ola.page, file);
    await card.getByText('0 ratings imported, 2 already here').waitFor();
    await screenshot(ola.page, 'account-import-again-1280');
  });
});
