import type { Browser, Page } from 'playwright-core';
import { DESKTOP, newPage, PHONE, PHONE_360, RunningServer, screenshot, signInThroughLanding, viewportShot, withAppAndBrowser } from './support';

/** The text of the statistic card titled `title` (e.g. "Total Members2"). */
async function statistic(page: Page, title: string): Promise<string> {
  return (await page.locator('.ant-statistic').filter({ hasText: title }).first().textContent()) ?? '';
}

/** Collects the JSON bodies of the group endpoints the page reads, to check what the server shares. */
function recordGroupResponses(page: Page): unknown[] {
  const bodies: unknown[] = [];
  page.on('response', async (response) => {
    if (!/\/api\/groups(\/|$)/.test(new URL(response.url()).pathname) || response.request().method() !== 'GET') return;
    try {
      bodies.push(await response.json());
    } catch {
      // not JSON
    }
  });
  return bodies;
}

const FACTORS = ['relationships', 'health', 'purpose', 'growth', 'joy'];
const FREE_PLAN = 'Free plan allows up to 3 groups. Upgrade to Joy Premium for unlimited groups.';

/** The group's code as the invite code panel shows it (the panel opened first when it is closed). */
async function shownInviteCode(page: Page): Promise<string> {
  const toggle = page.getByRole('button', { name: /Invite Code/ });
  if ((await toggle.getAttribute('aria-expanded')) === 'false') await toggle.click();
  return ((await page.getByTestId('detail-invite-code').textContent()) ?? '').trim();
}

describe('groups: one person creates a group, another joins it with the invite code', () => {
  let server: RunningServer;
  let browser: Browser;

  withAppAndBrowser((s, b) => ([server, browser] = [s, b]));

  it('creates, joins and shows members with their overall score only', async () => {
    // ---- A: no groups yet, a blank name is refused, then a group is created ----------------------------
    const a = await newPage(browser, DESKTOP);
    await a.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.baseUrl });
    const seenByA = recordGroupResponses(a.page);
    await signInThroughLanding(a.page, server.baseUrl, 'ana@example.com', 'Ana');
    await a.page.getByText('Welcome back, Ana!').waitFor();
    await a.page.getByRole('link', { name: 'Join Your First Group' }).click();
    await a.page.waitForURL(`${server.baseUrl}/groups`);
    await a.page.getByRole('heading', { name: 'No Groups Yet' }).waitFor();
    await a.page.getByRole('button', { name: 'Create Your First Group' }).waitFor();
    await a.page.getByRole('button', { name: 'Join a Group' }).waitFor();
    await screenshot(a.page, 'groups-empty-desktop');

    await a.page.getByRole('button', { name: 'Create Group', exact: true }).first().click();
    const createDialog = a.page.getByRole('dialog', { name: 'Create Group' });
    await createDialog.waitFor();
    // The name field has the focus when the dialog opens.
    await a.page.waitForFunction(() => document.activeElement?.getAttribute('aria-required') === 'true');
    await createDialog.getByLabel('Group Name').fill('   ');
    await createDialog.getByRole('button', { name: 'Create Group' }).click();
    // The spec's toast, and the same words under the field, which is marked invalid and has the focus.
    await a.page.getByRole('alert').getByText('Group name is required.').waitFor();
    const nameField = createDialog.getByLabel('Group Name');
    await createDialog.getByText('Group name is required.', { exact: true }).first().waitFor();
    expect(await nameField.getAttribute('aria-invalid')).toBe('true');
    expect(await nameField.evaluate((el) => el === document.activeElement)).toBe(true);
    await screenshot(a.page, 'groups-create-blank-name');

    await createDialog.getByLabel('Group Name').fill('Garcia Family');
    await createDialog.getByLabel('Description (Optional)').fill('Sunday calls, birthdays and a lot of love. We check in on each other every week, near and far.');
    await createDialog.getByLabel('Group Name').press('Enter');
    await a.page.getByText('Group created successfully!').waitFor();
    await createDialog.waitFor({ state: 'hidden' });
    await a.page.getByRole('heading', { name: 'Garcia Family' }).waitFor();
    const inviteCode = ((await a.page.getByTestId('group-invite-code').first().textContent()) ?? '').trim();
    expect(inviteCode).toMatch(/^[A-Z2-9]{8}$/);
    await screenshot(a.page, 'groups-list-desktop');

    // ---- B (phone): rates their joy at 2.0 on Home, then joins with the code in lower case ------------
    const b = await newPage(browser, PHONE);
    await signInThroughLanding(b.page, server.baseUrl, 'bea@example.com', 'Bea');
    await b.page.getByText('Welcome back, Bea!').waitFor();
    for (const label of ['Relationships', 'Health', 'Purpose', 'Growth', 'Joy']) {
      await b.page.getByLabel(`${label}: 2 stars, Low`).check({ force: true });
    }
    await expect(b.page.getByTestId('overall-score').textContent()).resolves.toBe('2.0');
    await b.page.getByRole('button', { name: 'Save Rating' }).click();
    await b.page.getByText('Rating Saved!').waitFor();

    await b.page.goto(`${server.baseUrl}/groups`);
    await b.page.getByRole('heading', { name: 'No Groups Yet' }).waitFor();
    await screenshot(b.page, 'groups-empty-phone');
    await b.page.getByRole('button', { name: 'Join a Group' }).click();
    const joinDialog = b.page.getByRole('dialog', { name: 'Join Group' });
    await joinDialog.getByLabel('Invite Code').fill(inviteCode.toLowerCase());
    await screenshot(b.page, 'groups-join-dialog-phone');
    await joinDialog.getByRole('button', { name: 'Join Group' }).click();
    await b.page.getByText('Joined group successfully!').waitFor();
    await joinDialog.waitFor({ state: 'hidden' });
    await b.page.getByRole('heading', { name: 'Garcia Family' }).waitFor();
    await screenshot(b.page, 'groups-list-phone');

    // Joining again: SPEC's words, then the server's reason.
    await b.page.getByRole('button', { name: 'Join Group', exact: true }).first().click();
    await joinDialog.getByLabel('Invite Code').fill(inviteCode);
    await joinDialog.getByRole('button', { name: 'Join Group' }).click();
    await b.page.getByText('Failed to join group. Please check the invite code. You are already a member of this group.').waitFor();
    await joinDialog.getByRole('button', { name: 'Cancel' }).click();

    // ---- A opens the group: B is a member with the overall score 2.0, and nothing more ----------------
    await a.page.getByRole('button', { name: 'View Garcia Family' }).click();
    await a.page.getByRole('heading', { name: 'Garcia Family', level: 1 }).waitFor();
    expect(a.page.url()).toMatch(/\/groups\?group=[\w-]+$/);
    await a.page.getByRole('heading', { name: 'Group Members' }).waitFor();
    const members = a.page.getByTestId('group-members');
    const bea = members.getByRole('listitem').filter({ hasText: 'bea@example.com' });
    await bea.waitFor();
    expect(await bea.textContent()).toContain('Bea');
    expect(await bea.textContent()).toContain('2.0');
    const ana = members.getByRole('listitem').filter({ hasText: 'ana@example.com' });
    expect(await ana.textContent()).toContain('No ratings yet');

    expect(await statistic(a.page, 'Total Members')).toContain('2');
    expect(await statistic(a.page, 'Active This Week')).toContain('1');
    expect(await statistic(a.page, 'Average Joy Score')).toContain('2.0');
    expect(await a.page.getByTestId('group-average-badge').textContent()).toBe('2.0 / 5.0');
    expect(await a.page.getByTestId('group-average-badge').getAttribute('data-variant')).toBe('secondary');
    await a.page.getByText('1 of 2').waitFor();
    // Bea's rating was made before she joined: her latest score, not the group's activity (join privacy).
    await a.page.getByText('No recent activity yet').waitFor();

    // Privacy: B's factor scores appear neither on the page nor in anything the group endpoints sent.
    const pageText = (await a.page.locator('main').textContent()) ?? '';
    for (const factor of ['Relationships', 'Health', 'Purpose', 'Growth']) expect(pageText).not.toContain(factor);
    expect(seenByA.length).toBeGreaterThanOrEqual(4);
    const sent = JSON.stringify(seenByA);
    for (const factor of FACTORS) expect(sent).not.toContain(`"${factor}"`);

    // Invite code panel: toggles, copies.
    const toggle = a.page.getByRole('button', { name: /Invite Code/ });
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    await toggle.click();
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');
    expect((await a.page.getByTestId('detail-invite-code').textContent())?.trim()).toBe(inviteCode);
    await a.page.getByRole('button', { name: 'Copy' }).click();
    await a.page.getByText('Invite code copied to clipboard').waitFor();
    expect(await a.page.evaluate(() => navigator.clipboard.readText())).toBe(inviteCode);
    await a.page.mouse.move(0, 0);
    await screenshot(a.page, 'group-detail-desktop');

    // The selection survives a reload (it is mirrored in ?group=).
    await a.page.reload();
    await a.page.getByRole('heading', { name: 'Garcia Family', level: 1 }).waitFor();
    await a.page.setViewportSize(PHONE);
    await a.page.getByTestId('group-members').waitFor();
    await screenshot(a.page, 'group-detail-phone');

    await a.page.getByRole('button', { name: 'Back to Groups' }).click();
    await a.page.getByRole('heading', { name: 'Your Groups', level: 1 }).waitFor();
    // The smallest width the app supports.
    await a.page.setViewportSize({ width: 360, height: 740 });
    await screenshot(a.page, 'groups-list-360');
    await a.page.getByRole('button', { name: 'Create Group', exact: true }).first().click();
    await a.page.getByRole('dialog', { name: 'Create Group' }).waitFor();
    await screenshot(a.page, 'groups-create-dialog-360');
    await a.page.keyboard.press('Escape');
    await a.page.getByRole('dialog', { name: 'Create Group' }).waitFor({ state: 'hidden' });

    // ---- Home shows the group in 'Your Groups' and counts it ------------------------------------------
    await a.page.setViewportSize(DESKTOP);
    await a.page.goto(server.baseUrl);
    const yourGroups = a.page.locator('.ant-card').filter({ has: a.page.getByRole('heading', { name: 'Your Groups' }) });
    await yourGroups.getByText('Garcia Family').waitFor();
    expect(await yourGroups.getByText('Active').count()).toBe(1);
    expect(await statistic(a.page, 'Groups')).toContain('1');

    // ---- A group the user is not in: Group not found ----------------------------------------------------
    await a.page.goto(`${server.baseUrl}/groups?group=00000000-0000-0000-0000-000000000000`);
    await a.page.getByRole('heading', { name: 'Group not found' }).waitFor();

    // ---- The member leaves, after confirming, on a phone: the group is gone from their list -------------
    await b.page.setViewportSize({ width: 360, height: 740 });
    await b.page.goto(`${server.baseUrl}/groups`);
    await b.page.getByRole('button', { name: 'View Garcia Family' }).click();
    await b.page.getByRole('button', { name: 'Leave group' }).click();
    await b.page.getByText('Leave Garcia Family?').waitFor();
    await screenshot(b.page, 'group-leave-confirm-360');
    await b.page.getByRole('button', { name: 'Leave group' }).last().click();
    await b.page.getByRole('heading', { name: 'Your Groups', level: 1 }).waitFor();
    await b.page.getByText('You left the group').waitFor();
    expect(await b.page.getByRole('button', { name: 'View Garcia Family' }).count()).toBe(0);

    await a.context.close();
    await b.context.close();
  });

  it("the owner renames the group, removes a member and deletes it; the others see each change", async () => {
    const owner = await newPage(browser, DESKTOP);
    await signInThroughLanding(owner.page, server.baseUrl, 'olga@example.com', 'Olga');
    await owner.page.getByText('Welcome back, Olga!').waitFor();
    const created = await owner.page.request.post(`${server.baseUrl}/api/groups`, { data: { name: 'Cousins' } });
    const group = (await created.json()) as { id: string; inviteCode: string };
    const others = [];
    for (const [email, name] of [['max@example.com', 'Max'], ['nia@example.com', 'Nia']]) {
      const other = await newPage(browser, PHONE);
      await signInThroughLanding(other.page, server.baseUrl, email, name);
      await other.page.getByText(`Welcome back, ${name}!`).waitFor();
      expect((await other.page.request.post(`${server.baseUrl}/api/groups/join`, { data: { inviteCode: group.inviteCode } })).status()).toBe(200);
      others.push(other);
    }
    const [max, nia] = others;

    // Rename, from the group page.
    await owner.page.goto(`${server.baseUrl}/groups?group=${group.id}`);
    await owner.page.getByRole('heading', { name: 'Cousins', level: 1 }).waitFor();
    await owner.page.getByTestId('group-members').getByText('Owner').waitFor();
    await owner.page.getByRole('button', { name: 'Rename group' }).click();
    const dialog = owner.page.getByRole('dialog', { name: 'Rename Group' });
    await dialog.getByLabel('Group Name').fill('The Cousins');
    await dialog.getByLabel('Description (Optional)').fill('Summers at the lake');
    await screenshot(owner.page, 'group-rename-1280');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await owner.page.getByText('Group updated').waitFor();
    await owner.page.getByRole('heading', { name: 'The Cousins', level: 1 }).waitFor();
    await nia.page.goto(`${server.baseUrl}/groups`);
    await nia.page.getByRole('button', { name: 'View The Cousins' }).waitFor();
    // A member who is not the owner has Leave only.
    await nia.page.getByRole('button', { name: 'View The Cousins' }).click();
    await nia.page.getByRole('button', { name: 'Leave group' }).waitFor();
    expect(await nia.page.getByRole('button', { name: 'Rename group' }).count()).toBe(0);
    expect(await nia.page.getByRole('button', { name: 'Remove Max' }).count()).toBe(0);

    // Remove Max, confirmed.
    // The toast's close button sits over the member list's top right until it goes.
    await owner.page.getByText('Group updated').waitFor({ state: 'detached' });
    await owner.page.getByRole('button', { name: 'Remove Max' }).click();
    await owner.page.getByText('Remove Max from The Cousins?').waitFor();
    await owner.page.mouse.move(0, 0);
    await screenshot(owner.page, 'group-remove-confirm-1280');
    await owner.page.getByRole('button', { name: 'Remove', exact: true }).click();
    await owner.page.getByText('Member removed').waitFor();
    await owner.page.getByTestId('group-members').getByText('max@example.com').waitFor({ state: 'detached' });
    await max.page.goto(`${server.baseUrl}/groups`);
    await max.page.getByRole('heading', { name: 'No Groups Yet' }).waitFor();
    // Max is told which group, and how to come back.
    const removal = max.page.getByRole('status').filter({ hasText: 'You were removed from The Cousins' });
    await removal.getByText('To join it again, ask them for a new invite code.').waitFor();
    await screenshot(max.page, 'group-removed-notice-phone');

    // A new invite code, confirmed: the old one no longer lets Max back in (typed as people write codes).
    await owner.page.getByText('Member removed').waitFor({ state: 'detached' });
    expect(await shownInviteCode(owner.page)).toBe(group.inviteCode);
    await owner.page.getByRole('button', { name: 'New invite code' }).click();
    await owner.page.getByText('The current code stops working; people who have it can no longer join.').waitFor();
    await owner.page.mouse.move(0, 0);
    await screenshot(owner.page, 'group-new-invite-code-confirm-1280');
    await owner.page.getByRole('button', { name: 'New invite code' }).last().click();
    await owner.page.getByText('The old code no longer works.', { exact: false }).waitFor();
    await owner.page.waitForFunction((old) => document.querySelector('[data-testid="detail-invite-code"]')?.textContent?.trim() !== old, group.inviteCode);
    const newCode = await shownInviteCode(owner.page);
    expect(newCode).toMatch(/^[A-Z2-9]{8}$/);
    await owner.page.getByText('The old code no longer works.', { exact: false }).waitFor({ state: 'detached' });
    await screenshot(owner.page, 'group-new-invite-code-1280');
    await max.page.getByRole('button', { name: 'Join a Group' }).click();
    const maxJoin = max.page.getByRole('dialog', { name: 'Join Group' });
    await maxJoin.getByLabel('Invite Code').fill(`${group.inviteCode.slice(0, 4)}-${group.inviteCode.slice(4)}`);
    await maxJoin.getByRole('button', { name: 'Join Group' }).click();
    await max.page.getByText("Failed to join group. Please check the invite code. This invite code was replaced by a new one: ask the group's owner for it.").waitFor();
    await maxJoin.getByRole('button', { name: 'Cancel' }).click();
    // Nia, still a member, sees the new code.
    await nia.page.reload();
    expect(await shownInviteCode(nia.page)).toBe(newCode);
    expect(await nia.page.getByRole('button', { name: 'New invite code' }).count()).toBe(0);

    // The owner's controls at 360 px.
    await owner.page.setViewportSize({ width: 360, height: 740 });
    await owner.page.getByRole('button', { name: 'Delete group' }).scrollIntoViewIfNeeded();
    expect(await owner.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await screenshot(owner.page, 'group-owner-actions-360');

    // Delete, confirmed: gone for Nia too, and the code no longer works.
    await owner.page.getByRole('button', { name: 'Delete group' }).click();
    await owner.page.getByText('Delete The Cousins?').waitFor();
    // The bubble, drawn whole, keeps clear of the phone's edges.
    const bubble = await owner.page.locator('.ant-popconfirm', { hasText: 'Delete The Cousins?' }).locator('.ant-popover-container').boundingBox();
    expect(bubble!.x).toBeGreaterThanOrEqual(8);
    expect(bubble!.x + bubble!.width).toBeLessThanOrEqual(360 - 8);
    await screenshot(owner.page, 'group-delete-confirm-360');
    await owner.page.getByRole('button', { name: 'Delete group' }).last().click();
    await owner.page.getByText('Group deleted').waitFor();
    await owner.page.getByRole('heading', { name: 'Your Groups', level: 1 }).waitFor();
    await nia.page.goto(`${server.baseUrl}/groups`);
    await nia.page.getByRole('heading', { name: 'No Groups Yet' }).waitFor();
    expect((await max.page.request.post(`${server.baseUrl}/api/groups/join`, { data: { inviteCode: group.inviteCode } })).status()).toBe(404);

    for (const p of [owner, max, nia]) await p.context.close();
  });

  it('at 360 px: a long name keeps its words, the free-plan limit is told once, and the owner gets a new code', async () => {
    const alex = await newPage(browser, PHONE_360);
    await signInThroughLanding(alex.page, server.baseUrl, 'alexandrina@example.com', 'Alexandrina-Konstantina');
    const created: { id: string; inviteCode: string }[] = [];
    for (const name of ['Family', 'Friends', 'Book Club']) {
      created.push(await (await alex.page.request.post(`${server.baseUrl}/api/groups`, { data: { name } })).json());
    }

    // The 4th group: the limit shows once, in the dialog, below fields that a toast no longer covers.
    await alex.page.goto(`${server.baseUrl}/groups`);
    await alex.page.getByRole('button', { name: 'Create Group', exact: true }).first().click();
    const dialog = alex.page.getByRole('dialog', { name: 'Create Group' });
    await dialog.getByLabel('Group Name').fill('Fourth');
    await dialog.getByText('6 / 80').waitFor();
    await dialog.getByRole('button', { name: 'Create Group' }).click();
    await dialog.getByText(FREE_PLAN).waitFor();
    await dialog.getByRole('link', { name: /Upgrade/ }).waitFor();
    expect(await alex.page.getByText(FREE_PLAN).count()).toBe(1);
    expect(await alex.page.locator('.ant-notification-notice').count()).toBe(0);
    const limitBox = (await dialog.getByText(FREE_PLAN).boundingBox())!;
    expect(limitBox.y + limitBox.height).toBeLessThanOrEqual(PHONE_360.height);
    await viewportShot(alex.page, 'groups-free-plan-limit-360');
    await dialog.getByRole('button', { name: 'Cancel' }).click();

    // The member grid: the long name on one line, ending in "…" if it must, never broken inside a word.
    await alex.page.goto(`${server.baseUrl}/groups?group=${created[0].id}`);
    const me = alex.page.getByTestId('group-members').getByRole('listitem').first();
    await me.getByText('Owner').waitFor();
    const name = me.locator('.group-member__first-name');
    expect(await name.getAttribute('title')).toBe('Alexandrina-Konstantina');
    const lines = await name.evaluate((el) => el.getBoundingClientRect().height / parseFloat(getComputedStyle(el).lineHeight));
    expect(Math.round(lines)).toBe(1);
    expect(await alex.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE_360.width);
    await me.scrollIntoViewIfNeeded();
    await screenshot(alex.page, 'group-members-long-name-360');

    // A new invite code from the panel, at 360 px.
    await alex.page.getByRole('button', { name: /Invite Code/ }).scrollIntoViewIfNeeded();
    expect(await shownInviteCode(alex.page)).toBe(created[0].inviteCode);
    await alex.page.getByRole('button', { name: 'New invite code' }).click();
    await alex.page.getByText('Get a new invite code?').waitFor();
    await viewportShot(alex.page, 'group-new-invite-code-confirm-360');
    await alex.page.getByRole('button', { name: 'New invite code' }).last().click();
    await alex.page.waitForFunction((old) => document.querySelector('[data-testid="detail-invite-code"]')?.textContent?.trim() !== old, created[0].inviteCode);
    await viewportShot(alex.page, 'group-new-invite-code-360');
    const newCode = await shownInviteCode(alex.page);
    const joins = await Promise.all(
      [created[0].inviteCode, newCode].map(async (inviteCode) => (await alex.page.request.post(`${server.baseUrl}/api/groups/join`, { data: { inviteCode } })).status()),
    );
    // Alexandrina is a member: the old code, as the new one, says so (409). What the old code tells anyone else (404,
    // replaced) is checked in the owner's test above.
    expect(joins).toEqual([409, 409]);

    await alex.context.close();
  });
});
