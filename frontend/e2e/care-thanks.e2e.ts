import type { Browser } from 'playwright-core';
import { DESKTOP, newPage, PHONE_360, RunningServer, screenshot, signInThroughLanding, subscribeInSandbox, withAppAndBrowser } from './support';

describe('thanks for care: the recipient says thanks on Home, the sender sees it on the Sent page', () => {
  let server: RunningServer;
  let browser: Browser;

  withAppAndBrowser((s, b) => ([server, browser] = [s, b]));

  it('sends care, thanks it once from a phone, and shows "Thanked" to the sender on a desktop and a phone', async () => {
    // ---- Ana (desktop): a group, and Joy Premium through the sandbox checkout ---------------------------
    const ana = await newPage(browser, DESKTOP);
    ana.page.setDefaultTimeout(30_000);
    await signInThroughLanding(ana.page, server.baseUrl, 'ana@thanks.example', 'Ana');
    const created = await ana.page.request.post(`${server.baseUrl}/api/groups`, { data: { name: 'Garcia Family' } });
    expect(created.status()).toBe(201);
    const group = (await created.json()) as { id: string; inviteCode: string };
    await subscribeInSandbox(ana.page, server.baseUrl);

    // ---- Bea (360 px phone) joins; Ana sends her a handwritten card -------------------------------------
    const bea = await newPage(browser, PHONE_360);
    bea.page.setDefaultTimeout(30_000);
    await signInThroughLanding(bea.page, server.baseUrl, 'bea@thanks.example', 'Bea');
    const joined = await bea.page.request.post(`${server.baseUrl}/api/groups/join`, { data: { inviteCode: group.inviteCode } });
    expect(joined.status()).toBe(200);
    const beaId = ((await (await bea.page.request.get(`${server.baseUrl}/api/auth/user`)).json()) as { id: string }).id;
    const sent = await ana.page.request.post(`${server.baseUrl}/api/care-actions`, {
      data: { groupId: group.id, recipientId: beaId, kind: 'handwritten_card', message: 'You are doing great. Call me anytime.' },
    });
    expect(sent.status()).toBe(201);

    // ---- Ana finds the Sent page in the navigation (premium): sent, not thanked yet ---------------------
    await ana.page.goto(server.baseUrl);
    await ana.page.getByRole('navigation', { name: 'Main' }).first().getByRole('link', { name: 'Care Sent' }).click();
    await ana.page.waitForURL(`${server.baseUrl}/care/sent`);
    await ana.page.getByRole('heading', { name: 'Care You Sent', level: 1 }).waitFor();
    const anasList = ana.page.getByTestId('care-sent');
    await anasList.getByText('Handwritten card to Bea').waitFor();
    await anasList.getByText('You are doing great. Call me anytime.').waitFor();
    await anasList.getByText('Today').waitFor();
    expect(await anasList.getByText('Thanked').count()).toBe(0);

    // ---- Bea says thanks on Home ------------------------------------------------------------------------
    await bea.page.goto(server.baseUrl);
    const received = bea.page.getByTestId('care-received');
    await received.getByText('Handwritten card from Ana').waitFor();
    await screenshot(bea.page, 'care-thanks-home-before-360');
    await received.getByRole('button', { name: 'Say thanks to Ana' }).click();
    await bea.page.getByText('Ana will see that you said thanks.').waitFor();
    await received.getByText('Thanked').waitFor();
    expect(await received.getByRole('button', { name: /Say thanks/ }).count()).toBe(0);
    await screenshot(bea.page, 'care-thanks-home-thanked-360');
    // Still thanked after a reload: it is stored, not just shown.
    await bea.page.reload();
    await received.getByText('Thanked').waitFor();
    expect(await received.getByRole('button', { name: /Say thanks/ }).count()).toBe(0);

    // The same Home on a desktop.
    const beaDesktop = await newPage(browser, DESKTOP);
    await beaDesktop.context.addCookies(await bea.context.cookies());
    await beaDesktop.page.goto(server.baseUrl);
    await beaDesktop.page.getByTestId('care-received').getByText('Thanked').waitFor();
    await screenshot(beaDesktop.page, 'care-thanks-home-thanked-1280');

    // ---- Ana sees "Thanked" on the Sent page ------------------------------------------------------------
    await ana.page.reload();
    await anasList.getByText('Handwritten card to Bea').waitFor();
    await anasList.getByText('Thanked').waitFor();
    await screenshot(ana.page, 'care-sent-thanked-1280');

    // And on a 360 px phone, reaching the page through the menu.
    const anaPhone = await newPage(browser, PHONE_360);
    await anaPhone.context.addCookies(await ana.context.cookies());
    await anaPhone.page.goto(server.baseUrl);
    await anaPhone.page.getByRole('button', { name: 'Open menu' }).click();
    await anaPhone.page.getByRole('dialog', { name: 'Menu' }).getByRole('link', { name: 'Care Sent' }).click();
    await anaPhone.page.waitForURL(`${server.baseUrl}/care/sent`);
    await anaPhone.page.getByTestId('care-sent').getByText('Thanked').waitFor();
    await screenshot(anaPhone.page, 'care-sent-thanked-360');

    // Nobody can thank twice, and the sender cannot thank for the recipient.
    const care = ((await (await bea.page.request.get(`${server.baseUrl}/api/care-actions/received`)).json()) as { id: string }[])[0];
    expect((await bea.page.request.post(`${server.baseUrl}/api/care-actions/${care.id}/thank`, { data: {} })).status()).toBe(409);
    expect((await ana.page.request.post(`${server.baseUrl}/api/care-actions/${care.id}/thank`, { data: {} })).status()).toBe(404);
  });
});
