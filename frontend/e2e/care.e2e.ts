import type { Browser, Page } from 'playwright-core';
import { DESKTOP, newPage, PHONE, RunningServer, screenshot, signInThroughLanding, subscribeInSandbox, withAppAndBrowser } from './support';

async function rateAll(page: Page, stars: number, label: string) {
  for (const factor of ['Relationships', 'Health', 'Purpose', 'Growth', 'Joy']) {
    await page.getByLabel(`${factor}: ${stars} ${stars === 1 ? 'star' : 'stars'}, ${label}`).check({ force: true });
  }
  await page.getByRole('button', { name: 'Save Rating' }).click();
  await page.getByText('Rating Saved!').first().waitFor();
}


describe('care actions: a premium member sends flowers to a member who rated low', () => {
  let server: RunningServer;
  let browser: Browser;

  withAppAndBrowser((s, b) => ([server, browser] = [s, b]));

  it('suggests care on the group page, sends it from the dialog, and the recipient sees it on Home', async () => {
    // ---- Ana (desktop): creates a group and takes Joy Premium through the sandbox Subscribe page -------
    const ana = await newPage(browser, DESKTOP);
    ana.page.setDefaultTimeout(30_000);
    await signInThroughLanding(ana.page, server.baseUrl, 'ana@example.com', 'Ana');
    const created = await ana.page.request.post(`${server.baseUrl}/api/groups`, { data: { name: 'Garcia Family' } });
    expect(created.status()).toBe(201);
    const group = (await created.json()) as { id: string; inviteCode: string };
    await subscribeInSandbox(ana.page, server.baseUrl);

    // ---- Bea (phone, free plan): rates all 2s and joins ---------------------------------------------------
    const bea = await newPage(browser, PHONE);
    bea.page.setDefaultTimeout(30_000);
    await signInThroughLanding(bea.page, server.baseUrl, 'bea@example.com', 'Bea');
    await bea.page.getByText('Welcome back, Bea!').waitFor();
    await rateAll(bea.page, 2, 'Low');
    const joined = await bea.page.request.post(`${server.baseUrl}/api/groups/join`, { data: { inviteCode: group.inviteCode } });
    expect(joined.status()).toBe(200);
    // Nothing received yet: no card on Home.
    await bea.page.reload();
    await bea.page.getByText('Welcome back, Bea!').waitFor();
    await bea.page.getByRole('heading', { name: 'Your Groups' }).waitFor();
    expect(await bea.page.getByRole('heading', { name: 'Care You Received' }).count()).toBe(0);

    // ---- Ana sees the suggestion for Bea and sends flowers with a message ------------------------------
    await ana.page.goto(`${server.baseUrl}/groups?group=${group.id}`);
    await ana.page.getByRole('heading', { name: 'Garcia Family', level: 1 }).waitFor();
    const suggestion = ana.page.getByTestId('care-suggestion');
    await suggestion.getByText('Bea could use some support').waitFor();
    expect(await suggestion.count()).toBe(1); // not for Ana herself
    await screenshot(ana.page, 'care-suggestion-desktop');

    await suggestion.getByRole('button', { name: 'Send care to Bea' }).click();
    const dialog = ana.page.getByRole('dialog', { name: 'Send care to Bea' });
    await dialog.waitFor();
    expect(await dialog.getByRole('radio').count()).toBe(4);
    await dialog.getByRole('radio', { name: /Flowers/ }).check();
    await dialog.getByLabel('Message (optional)').fill('Thinking of you, Bea. Coffee on Sunday?');
    await dialog.getByText('39 / 500').waitFor();
    await screenshot(ana.page, 'care-dialog-desktop');
    await dialog.getByRole('button', { name: 'Send Care' }).click();
    await ana.page.getByText('Care sent!').waitFor();
    await ana.page.getByText('Bea will receive your flowers.').waitFor();
    await dialog.waitFor({ state: 'hidden' });
    // The card says it was sent, and offers more rather than the same first step again.
    await suggestion.getByText('You sent care today: Flowers.').waitFor();
    await suggestion.getByRole('button', { name: 'Send more care to Bea' }).waitFor();
    await screenshot(ana.page, 'care-sent-desktop');

    // ---- Bea sees the flowers on Home (phone), delivered once the reactor ordered them ------------------
    await bea.page.reload();
    const card = bea.page.getByTestId('care-received');
    await bea.page.getByRole('heading', { name: 'Care You Received' }).waitFor();
    await card.getByText('Flowers from Ana').waitFor();
    await card.getByText('Thinking of you, Bea. Coffee on Sunday?').waitFor();
    await card.getByText('Today').waitFor();
    // The reactor fulfils it in the background: wait until the API says so (not a fixed time), then show it.
    const delivered = async () => ((await (await bea.page.request.get(`${server.baseUrl}/api/care-actions/received`)).json()) as { status: string }[]).some((c) => c.status === 'fulfilled');
    for (const deadline = Date.now() + 5_000; !(await delivered()); ) {
      if (Date.now() > deadline) throw new Error('the flowers were never delivered');
    }
    await bea.page.reload();
    await card.getByText('Ordered').waitFor();
    // On a phone it comes first, above the rating form (the side column it heads on a desktop goes last).
    const [cardTop, formTop] = await Promise.all([card.boundingBox(), bea.page.getByRole('form', { name: 'Rate your joy' }).boundingBox()]);
    expect(cardTop!.y).toBeLessThan(formTop!.y);
    await screenshot(bea.page, 'care-received-phone');

    // ---- The same on a desktop, and the group page of a free member on a phone -----------------------
    const beaDesktop = await newPage(browser, DESKTOP);
    await beaDesktop.context.addCookies(await bea.context.cookies());
    await beaDesktop.page.goto(server.baseUrl);
    await beaDesktop.page.getByTestId('care-received').getByText('Flowers from Ana').waitFor();
    await screenshot(beaDesktop.page, 'care-received-desktop');

    // Ana rates low too: Bea (free) is offered the Upgrade instead of Send care.
    await ana.page.goto(server.baseUrl);
    await rateAll(ana.page, 1, 'Very Low');
    await bea.page.goto(`${server.baseUrl}/groups?group=${group.id}`);
    const forBea = bea.page.getByTestId('care-suggestion');
    await forBea.getByText('Ana could use some support').waitFor();
    const upgrade = forBea.getByRole('link', { name: 'Upgrade to send care to Ana' });
    await upgrade.waitFor();
    expect(await forBea.getByRole('button', { name: /Send care/ }).count()).toBe(0);
    await screenshot(bea.page, 'care-suggestion-free-phone');
    await upgrade.click();
    await bea.page.waitForURL(`${server.baseUrl}/subscribe`);

    // Once Bea rates 3 or more, Ana's suggestion for her is gone.
    await bea.page.goto(server.baseUrl);
    await rateAll(bea.page, 4, 'High');
    await ana.page.goto(`${server.baseUrl}/groups?group=${group.id}`);
    await ana.page.getByRole('heading', { name: 'Garcia Family', level: 1 }).waitFor();
    await ana.page.getByTestId('group-members').waitFor();
    expect(await ana.page.getByTestId('care-suggestion').count()).toBe(0);

    // A phone view of the dialog too.
    const anaPhone = await newPage(browser, PHONE);
    await anaPhone.context.addCookies(await ana.context.cookies());
    await bea.page.goto(server.baseUrl);
    await rateAll(bea.page, 2, 'Low');
    await anaPhone.page.goto(`${server.baseUrl}/groups?group=${group.id}`);
    await anaPhone.page.getByTestId('care-suggestion').getByText('Bea could use some support').waitFor();
    await screenshot(anaPhone.page, 'care-suggestion-phone');
    await anaPhone.page.getByRole('button', { name: 'Send more care to Bea' }).click();
    await anaPhone.page.getByRole('dialog', { name: 'Send care to Bea' }).waitFor();
    await screenshot(anaPhone.page, 'care-dialog-phone');
  });
});
