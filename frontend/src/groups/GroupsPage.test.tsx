import { QueryClientProvider } from '@tanstack/react-query';
import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter, useLocation } from 'react-router-dom';
import { createQueryClient } from '../api';
import { AppRoutes } from '../App';
import { antdPageTests } from '../testing/antdPages';
import GroupsPage from '../pages/Groups';
import { installFakeServer, summaryRoute, type FakeRoutes } from '../testing/fakeServer';


const me = { id: 'u1', email: 'ada@example.com', firstName: 'Ada', profileImageUrl: null };
const garcia = {
  id: 'g1',
  name: 'Garcia Family',
  description: 'Sunday calls and a lot of love. A long description that goes on for more than two lines on a card.',
  inviteCode: 'K7PX9QMB',
  createdAt: '2026-03-05T12:00:00.000Z',
};
const book = { id: 'g2', name: 'Book Club', description: null, inviteCode: 'QWERTYUP', createdAt: '2026-03-06T12:00:00.000Z' };
const members = [
  { id: 'u1', firstName: 'Ada', email: 'ada@example.com', profileImageUrl: null, latestScore: null, isOwner: true },
  { id: 'u2', firstName: null, email: 'bea@example.com', profileImageUrl: null, latestScore: 2, isOwner: false },
];
const ratings = [{ id: 'r1', userId: 'u2', overallScore: 2, createdAt: '2026-03-07T09:30:00.000Z' }];
const detail = (averageScore: number, ownerId = 'u1') => ({ ...garcia, memberCount: 2, activeThisWeek: 1, averageScore, recentRatingsCount: 1, ownerId });

const base: FakeRoutes = {
  'GET /api/auth/user': { status: 200, body: me },
  'GET /api/subscription-status': { status: 200, body: { isPremium: false, status: 'free' } },
  'GET /api/joy-ratings': { status: 200, body: [] },
  ...summaryRoute(() => []),
  'GET /api/joy-ratings/latest': { status: 200, body: null },
};

function withGroup(averageScore = 2): FakeRoutes {
  return {
    ...base,
    'GET /api/groups': { status: 200, body: [garcia, book] },
    'GET /api/groups/g1': { status: 200, body: detail(averageScore) },
    'GET /api/groups/g1/members': { status: 200, body: members },
    'GET /api/groups/g1/ratings': { status: 200, body: ratings },
  };
}

let location = '';
function LocationProbe() {
  const current = useLocation();
  location = `${current.pathname}${current.search}`;
  return null;
}

function renderGroups(path = '/groups') {
  render(
    <QueryClientProvider client={createQueryClient()}>
      <MemoryRouter initialEntries={[path]}>
        <GroupsPage />
        <LocationProbe />
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

const notifier = antdPageTests();

describe('Groups page: list', () => {
  it('shows a loading state, then the empty state with its two actions', async () => {
    let respond: (value: { status: number; body?: unknown }) => void = () => undefined;
    installFakeServer({ ...base, 'GET /api/groups': () => new Promise((resolve) => (respond = resolve)) });
    renderGroups();
    expect(screen.getByRole('heading', { name: 'Your Groups', level: 1, hidden: true })).toBeInTheDocument();
    expect(screen.getByRole('status')).toHaveTextContent('Loading groups...');
    await act(async () => respond({ status: 200, body: [] }));
    expect(await screen.findByRole('heading', { name: 'No Groups Yet', hidden: true })).toBeInTheDocument();
    fireEvent.click(screen.getByRole('button', { name: 'Create Your First Group', hidden: true }));
    expect(await screen.findByRole('dialog', { name: 'Create Group', hidden: true })).toBeInTheDocument();
  });

  it('opens the dialogs from the header buttons', async () => {
    installFakeServer({ ...base, 'GET /api/groups': { status: 200, body: [] } });
    renderGroups();
    await screen.findByRole('heading', { name: 'No Groups Yet', hidden: true });
    fireEvent.click(screen.getByRole('button', { name: 'Join Group', hidden: true }));
    expect(await screen.findByRole('dialog', { name: 'Join Group', hidden: true })).toBeInTheDocument();
    expect(screen.getByLabelText('Invite Code')).toBeInTheDocument();
  });

  it.each([
    ['Create Your First Group', 'Group Name', 'Book Club', 'POST /api/groups'],
    ['Join a Group', 'Invite Code', 'QWERTYUP', 'POST /api/groups/join'],
  ])('puts the focus on the new group, not the page, after "%s" (its button went with the empty list)', async (opener, field, value, route) => {
    let groups: unknown[] = [];
    installFakeServer({
      ...base,
      'GET /api/groups': () => ({ status: 200, body: groups }),
      [route]: () => ((groups = [book]), { status: 201, body: book }),
    });
    renderGroups();
    await screen.findByRole('heading', { name: 'No Groups Yet', hidden: true });
    // As a keyboard does: Enter on the focused button, then Enter in the field.
    const button = screen.getByRole('button', { name: opener, hidden: true });
    act(() => button.focus());
    fireEvent.click(button);
    const input = await screen.findByLabelText(field);
    await waitFor(() => expect(input).toHaveFocus());
    fireEvent.change(input, { target: { value } });
    fireEvent.submit(input.closest('form')!);
    await waitFor(() => expect(screen.getByRole('button', { name: 'View Book Club', hidden: true })).toHaveFocus());
  });

  it('gives the focus back to the header button after Create Group from there', async () => {
    let groups: unknown[] = [garcia];
    installFakeServer({
      ...base,
      'GET /api/groups': () => ({ status: 200, body: groups }),
      'POST /api/groups': () => ((groups = [garcia, book]), { status: 201, body: book }),
    });
    renderGroups();
    await screen.findByRole('button', { name: 'View Garcia Family', hidden: true });
    const button = screen.getByRole('button', { name: 'Create Group', hidden: true });
    act(() => button.focus());
    fireEvent.click(button);
    const input = await screen.findByLabelText('Group Name');
    fireEvent.change(input, { target: { value: 'Book Club' } });
    fireEvent.submit(input.closest('form')!);
    await screen.findByRole('button', { name: 'View Book Club', hidden: true });
    await waitFor(() => expect(button).toHaveFocus());
  });

  it('lists the groups as cards with name, description, invite code and View', async () => {
    installFakeServer(withGroup());
    renderGroups();
    const list = await screen.findByRole('list', { name: 'Your groups' });
    const cards = within(list).getAllByRole('listitem');
    expect(cards).toHaveLength(2);
    expect(within(cards[0]).getByRole('heading', { name: 'Garcia Family', hidden: true })).toBeInTheDocument();
    expect(within(cards[0]).getByText(garcia.description)).toHaveClass('group-card__description');
    expect(within(cards[0]).getByText('K7PX9QMB')).toBeInTheDocument();
    expect(within(cards[0]).getByRole('button', { name: 'View Garcia Family', hidden: true })).toBeInTheDocument();
    expect(within(cards[1]).getByText('No description')).toBeInTheDocument();
  });

  it('tells a person their owner removed them from a group, by name and day, until they close the notice', async () => {
    localStorage.clear();
    const removals = [
      { groupId: 'g9', groupName: 'Running Club', removedAt: '2026-03-07T12:00:00.000Z', groupDeleted: false },
      { groupId: 'g8', groupName: 'Old Friends', removedAt: '2026-03-01T12:00:00.000Z', groupDeleted: true },
    ];
    installFakeServer({ ...base, 'GET /api/groups': { status: 200, body: [book] }, 'GET /api/groups/removals': { status: 200, body: removals } });
    const { unmount } = render(
      <QueryClientProvider client={createQueryClient()}>
        <MemoryRouter initialEntries={['/groups']}>
          <GroupsPage />
        </MemoryRouter>
      </QueryClientProvider>,
    );
    const notice = (await screen.findByText('You were removed from Running Club')).closest<HTMLElement>('.ant-alert')!;
    expect(notice).toHaveTextContent('Its owner removed you on Mar 7, 2026. To join it again, ask them for a new invite code.');
    // A group deleted since is not to be asked back into.
    expect(screen.getByText('You were removed from Old Friends').closest('.ant-alert')).toHaveTextContent('Its owner removed you on Mar 1, 2026. The group has been deleted since.');
    expect(screen.getByRole('heading', { name: 'Book Club', hidden: true })).toBeInTheDocument();

    fireEvent.click(within(notice).getByRole('button', { name: 'Close the notice about Running Club', hidden: true }));
    await waitFor(() => expect(screen.queryByText('You were removed from Running Club')).not.toBeInTheDocument());
    expect(screen.getByText('You were removed from Old Friends')).toBeInTheDocument();

    // Closed stays closed on this device (the next visit), for this person only.
    unmount();
    renderGroups();
    expect(await screen.findByText('You were removed from Old Friends')).toBeInTheDocument();
    expect(screen.queryByText('You were removed from Running Club')).not.toBeInTheDocument();
    expect(JSON.parse(localStorage.getItem('joy.closed-removals.u1')!)).toEqual(['g9@2026-03-07T12:00:00.000Z']);
  });
});

describe('Groups page: detail', () => {
  it('shows the selected group in the same page, mirrored in ?group=, and goes back', async () => {
    installFakeServer(withGroup());
    renderGroups();
    fireEvent.click(await screen.findByRole('button', { name: 'View Garcia Family', hidden: true }));
    expect(await screen.findByRole('heading', { name: 'Garcia Family', level: 1, hidden: true })).toBeInTheDocument();
    expect(location).toBe('/groups?group=g1');
    expect(screen.getByText(garcia.description)).toBeInTheDocument();
    expect(screen.getByText('Created Mar 5, 2026', { exact: false })).toBeInTheDocument();

    fireEvent.click(screen.getByRole('button', { name: 'Back to Groups', hidden: true }));
    expect(await screen.findByRole('heading', { name: 'Your Groups', level: 1, hidden: true })).toBeInTheDocument();
    expect(location).toBe('/groups');
    await waitFor(() => expect(screen.getByRole('button', { name: 'View Garcia Family', hidden: true })).toHaveFocus());
  });

  it('leaves a group after confirming, and is back on the list without it', async () => {
    let left = false;
    const fetchMock = installFakeServer({
      ...withGroup(),
      'GET /api/groups': () => ({ status: 200, body: left ? [book] : [garcia, book] }),
      'POST /api/groups/g1/leave': () => ((left = true), { status: 204 }),
    });
    renderGroups('/groups?group=g1');
    fireEvent.click(await screen.findByRole('button', { name: 'Leave group', hidden: true }));
    expect(await screen.findByText('Leave Garcia Family?')).toBeInTheDocument();
    // The owner is told who takes the group on (the longest-standing other member) and that rejoining will not give it back.
    expect(screen.getByText(/bea becomes its owner; if you rejoin, you will be a member, not the owner\./)).toBeInTheDocument();
    expect(fetchMock.mock.calls.some(([url]) => String(url).endsWith('/leave'))).toBe(false); // not before confirming
    // The confirmation's own "Leave group" (the popover's OK button, after the one that opened it).
    const asked = fetchMock.mock.calls.length;
    fireEvent.click(screen.getAllByRole('button', { name: 'Leave group', hidden: true }).at(-1)!);
    await waitFor(() => expect(location).toBe('/groups'));
    expect(fetchMock).toHaveBeenCalledWith('/api/groups/g1/leave', expect.objectContaining({ method: 'POST' }));
    expect(notifier.success).toHaveBeenCalledWith(expect.objectContaining({ title: 'You left the group' }));
    await waitFor(() => expect(screen.queryByRole('button', { name: 'View Garcia Family', hidden: true })).not.toBeInTheDocument());
    expect(screen.getByRole('button', { name: 'View Book Club', hidden: true })).toBeInTheDocument();
    // Nothing of the group left is asked for again (its detail, members and ratings answered 404s).
    const since = fetchMock.mock.calls.slice(asked).map(([url, init]) => `${init?.method ?? 'GET'} ${String(url)}`);
    expect(since.filter((call) => call.startsWith('GET /api/groups/g1'))).toEqual([]);
  });

  it('warns the only member that leaving deletes the group, and a member that they can rejoin', async () => {
    installFakeServer({ ...withGroup(), 'GET /api/groups/g1': { status: 200, body: { ...detail(2), memberCount: 1 } }, 'GET /api/groups/g1/members': { status: 200, body: [members[0]] } });
    renderGroups('/groups?group=g1');
    fireEvent.click(await screen.findByRole('button', { name: 'Leave group', hidden: true }));
    expect(await screen.findByText('You are its only member: leaving deletes the group, and its invite code stops working. This cannot be undone.')).toBeInTheDocument();
  });

  it('tells a member who can rejoin so', async () => {
    installFakeServer({ ...withGroup(), 'GET /api/groups/g1': { status: 200, body: detail(2, 'u2') } });
    renderGroups('/groups?group=g1');
    fireEvent.click(await screen.findByRole('button', { name: 'Leave group', hidden: true }));
    expect(await screen.findByText(/You can rejoin with its invite code\./)).toBeInTheDocument();
  });

  it('takes "no such group" on Leave as done (deleted, or removed meanwhile): said so, and back to the list', async () => {
    let gone = false;
    installFakeServer({
      ...withGroup(),
      'GET /api/groups': () => ({ status: 200, body: gone ? [book] : [garcia, book] }),
      'POST /api/groups/g1/leave': () => ((gone = true), { status: 404, body: { statusCode: 404, code: 'group.not_found', message: 'Group not found' } }),
    });
    renderGroups('/groups?group=g1');
    fireEvent.click(await screen.findByRole('button', { name: 'Leave group', hidden: true }));
    await screen.findByText('Leave Garcia Family?');
    fireEvent.click(screen.getAllByRole('button', { name: 'Leave group', hidden: true }).at(-1)!);
    await waitFor(() => expect(location).toBe('/groups'));
    expect(notifier.info).toHaveBeenCalledWith(expect.objectContaining({ title: 'You are no longer in this group', description: 'It was deleted, or you were removed from it.' }));
    expect(notifier.error).not.toHaveBeenCalled();
    await waitFor(() => expect(screen.queryByRole('button', { name: 'View Garcia Family', hidden: true })).not.toBeInTheDocument());
  });

  it('reads the members again when Remove finds the member gone already, so the card goes', async () => {
    let left = false;
    installFakeServer({
      ...withGroup(),
      'GET /api/groups/g1/members': () => ({ status: 200, body: left ? [members[0]] : members }),
      'DELETE /api/groups/g1/members/u2': () => ((left = true), { status: 404, body: { statusCode: 404, code: 'group.member_not_found', message: 'This person is not a member of the group.' } }),
    });
    renderGroups('/groups?group=g1');
    fireEvent.click(await screen.findByLabelText('Remove bea'));
    await screen.findByText('Remove bea from Garcia Family?');
    fireEvent.click(screen.getAllByText('Remove').at(-1)!.closest('button')!);
    await waitFor(() => expect(notifier.info).toHaveBeenCalledWith(expect.objectContaining({ title: 'Already gone', description: 'This person is no longer a member of the group.' })));
    await waitFor(() => expect(screen.queryByLabelText('Remove bea')).not.toBeInTheDocument());
  });

  it('gives the owner Rename, Remove and Delete, each sent only once confirmed', async () => {
    let renamed = garcia.name;
    let deleted = false;
    const fetchMock = installFakeServer({
      ...withGroup(),
      'GET /api/groups': () => ({ status: 200, body: deleted ? [book] : [{ ...garcia, name: renamed }, book] }),
      'GET /api/groups/g1': () => ({ status: 200, body: { ...detail(2), name: renamed } }),
      'PATCH /api/groups/g1': () => ((renamed = 'The Garcias'), { status: 200, body: { ...garcia, name: renamed } }),
      'DELETE /api/groups/g1/members/u2': { status: 204 },
      'DELETE /api/groups/g1': () => ((deleted = true), { status: 204 }),
    });
    renderGroups('/groups?group=g1');
    expect(await screen.findByText('Owner')).toBeInTheDocument();

    const button = (text: string) => screen.getAllByText(text).at(-1)!.closest('button')!;
    fireEvent.click(button('Rename group'));
    const nameField = await screen.findByLabelText('Group Name');
    expect(nameField).toHaveValue('Garcia Family');
    fireEvent.change(nameField, { target: { value: '  The Garcias ' } });
    fireEvent.click(button('Save'));
    await waitFor(() => expect(fetchMock).toHaveBeenCalledWith('/api/groups/g1', expect.objectContaining({ method: 'PATCH', body: JSON.stringify({ name: 'The Garcias', description: garcia.description }) })));
    await waitFor(() => expect(document.querySelector('h1')).toHaveTextContent('The Garcias'));

    fireEvent.click(screen.getByLabelText('Remove bea'));
    expect(await screen.findByText('Remove bea from The Garcias?')).toBeInTheDocument();
    expect(fetchMock.mock.calls.some(([, init]) => init?.method === 'DELETE')).toBe(false);
    fireEvent.click(button('Remove'));
    await waitFor(() => expect(fetchMock).toHaveBeenCalledWith('/api/groups/g1/members/u2', expect.objectContaining({ method: 'DELETE' })));
    expect(notifier.success).toHaveBeenCalledWith(expect.objectContaining({ title: 'Member removed' }));

    fireEvent.click(button('Delete group'));
    expect(await screen.findByText('Delete The Garcias?')).toBeInTheDocument();
    fireEvent.click(button('Delete group'));
    await waitFor(() => expect(location).toBe('/groups'));
    expect(notifier.success).toHaveBeenCalledWith(expect.objectContaining({ title: 'Group deleted' }));
  });

  it('says which day a missed day rated later is for, so that it does not read as how the member feels now', async () => {
    const late = { id: 'r2', userId: 'u2', overallScore: 1, createdAt: '2026-03-07T09:30:00.000Z', day: '2026-02-05' };
    // Made at 00:26 in Tokyo for that day: on time, though the viewer's zone may still be in the day before.
    const aheadOnTime = { id: 'r3', userId: 'u2', overallScore: 4, createdAt: '2026-03-06T15:26:00.000Z', day: '2026-03-07' };
    installFakeServer({ ...withGroup(), 'GET /api/groups/g1/ratings': { status: 200, body: [late, { ...ratings[0], day: '2026-03-07' }, aheadOnTime] } });
    renderGroups('/groups?group=g1');
    expect(await screen.findByText('Member rated their joy for Feb 5, 2026')).toBeInTheDocument();
    // A rating of the day it was made says nothing more.
    expect(screen.getAllByText('Member rated their joy')).toHaveLength(2);
  });

  it('shows a member who is not the owner only Leave', async () => {
    installFakeServer({ ...withGroup(), 'GET /api/groups/g1': { status: 200, body: detail(2, 'u2') } });
    renderGroups('/groups?group=g1');
    expect(await screen.findByText('Leave group')).toBeInTheDocument();
    expect(screen.queryByText('Rename group')).not.toBeInTheDocument();
    expect(screen.queryByText('Delete group')).not.toBeInTheDocument();
    expect(screen.queryByText('Remove')).not.toBeInTheDocument();
  });

  it('shows the figures, the gauge, the insights, recent activity and members (overall scores only)', async () => {
    installFakeServer(withGroup(2));
    renderGroups('/groups?group=g1');
    await screen.findByRole('heading', { name: 'Garcia Family', level: 1, hidden: true });

    expect(screen.getByText('Total Members').closest('.ant-statistic')).toHaveTextContent('2');
    expect(screen.getByText('Active This Week').closest('.ant-statistic')).toHaveTextContent('1');
    expect(screen.getByText('Average Joy Score').closest('.ant-statistic')).toHaveTextContent('2.0');

    expect(screen.getByRole('group', { name: /Overall joy score 2.0 out of 5/, hidden: true })).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Group Joy Insights', hidden: true })).toBeInTheDocument();
    const badge = screen.getByTestId('group-average-badge');
    expect(badge).toHaveTextContent('2.0 / 5.0');
    expect(badge).toHaveAttribute('data-variant', 'secondary');
    expect(screen.getByText('Active Members').nextElementSibling).toHaveTextContent('1 of 2');
    expect(screen.getByText('Recent Ratings').nextElementSibling).toHaveTextContent('1');

    const activity = await screen.findByText('Member rated their joy');
    const item = activity.closest('li')!;
    expect(item).toHaveTextContent('bea');
    expect(item).toHaveTextContent('2.0');
    expect(within(item).getByText((_, el) => el?.tagName === 'TIME')).toHaveAttribute('datetime', ratings[0].createdAt);

    const memberList = screen.getByTestId('group-members');
    const [ada, bea] = within(memberList).getAllByRole('listitem');
    // A name too long for its card ends in "…" (groups.css); the title keeps it whole.
    expect(within(ada).getByTitle('Ada')).toHaveTextContent(/^Ada$/);
    expect(ada).toHaveTextContent('Ada');
    expect(ada).toHaveTextContent('You');
    expect(ada).toHaveTextContent('No ratings yet');
    expect(bea).toHaveTextContent('bea');
    expect(bea).toHaveTextContent('bea@example.com');
    expect(bea).toHaveTextContent('2.0');
    // The five factors are private: never named on a group's page.
    for (const factor of ['Relationships', 'Health', 'Purpose', 'Growth']) {
      expect(screen.queryByText(new RegExp(factor))).not.toBeInTheDocument();
    }
  });

  it('uses the default badge style at 4 or above', async () => {
    installFakeServer(withGroup(4));
    renderGroups('/groups?group=g1');
    expect(await screen.findByTestId('group-average-badge')).toHaveAttribute('data-variant', 'default');
  });

  it('has no gauge or insights and shows the empty states when nobody has rated and nobody is listed', async () => {
    installFakeServer({
      ...withGroup(0),
      'GET /api/groups/g1/members': { status: 200, body: [] },
      'GET /api/groups/g1/ratings': { status: 200, body: [] },
    });
    renderGroups('/groups?group=g1');
    await screen.findByRole('heading', { name: 'Garcia Family', level: 1, hidden: true });
    expect(screen.getByText('Average Joy Score').closest('.ant-statistic')).toHaveTextContent('N/A');
    expect(screen.queryByText('Group Joy Insights')).not.toBeInTheDocument();
    expect(await screen.findByText('No recent activity yet')).toBeInTheDocument();
    // Why Active This Week can count members whose ratings are not listed: they rated before they were in it with you.
    expect(screen.getByText('Ratings show here from the time you and the member are both in the group.')).toBeInTheDocument();
    expect(screen.getByText('No members yet')).toBeInTheDocument();
    fireEvent.click(screen.getByRole('button', { name: 'Show Invite Code', hidden: true }));
    expect(screen.getByRole('button', { name: /Invite Code/ , expanded: true, hidden: true })).toBeInTheDocument();
  });

  it('says Group not found for a group the user cannot see', async () => {
    installFakeServer({
      ...withGroup(),
      'GET /api/groups/nope': { status: 404, body: { statusCode: 404, code: 'group.not_found', message: 'Group not found' } },
      'GET /api/groups/nope/members': { status: 404, body: { statusCode: 404, code: 'group.not_found', message: 'Group not found' } },
      'GET /api/groups/nope/ratings': { status: 404, body: { statusCode: 404, code: 'group.not_found', message: 'Group not found' } },
    });
    renderGroups('/groups?group=nope');
    expect(await screen.findByRole('heading', { name: 'Group not found', hidden: true })).toBeInTheDocument();
    fireEvent.click(screen.getByRole('button', { name: 'Back to Groups', hidden: true }));
    expect(await screen.findByRole('button', { name: 'View Garcia Family', hidden: true })).toBeInTheDocument();
  });
});

describe('Groups page: invite code', () => {
  afterEach(() => {
    Object.assign(navigator, { clipboard: undefined, share: undefined });
  });

  async function openPanel() {
    renderGroups('/groups?group=g1');
    const toggle = await screen.findByRole('button', { name: /Invite Code/, expanded: false, hidden: true });
    expect(screen.getByTestId('detail-invite-code')).not.toBeVisible();
    fireEvent.click(toggle);
    expect(toggle).toHaveAttribute('aria-expanded', 'true');
    expect(screen.getByTestId('detail-invite-code')).toBeVisible();
    expect(screen.getByTestId('detail-invite-code')).toHaveTextContent('K7PX9QMB');
  }

  it('copies the code with the Copied! toast', async () => {
    installFakeServer(withGroup());
    const writeText = jest.fn().mockResolvedValue(undefined);
    Object.assign(navigator, { clipboard: { writeText } });
    await openPanel();
    fireEvent.click(screen.getByRole('button', { name: 'Copy', hidden: true }));
    await waitFor(() =>
      expect(notifier.success).toHaveBeenCalledWith(expect.objectContaining({ title: 'Copied!', description: 'Invite code copied to clipboard' })),
    );
    expect(writeText).toHaveBeenCalledWith('K7PX9QMB');
  });

  it('tells when copying fails', async () => {
    installFakeServer(withGroup());
    Object.assign(navigator, { clipboard: { writeText: jest.fn().mockRejectedValue(new Error('denied')) } });
    await openPanel();
    fireEvent.click(screen.getByRole('button', { name: 'Copy', hidden: true }));
    await waitFor(() =>
      expect(notifier.error).toHaveBeenCalledWith(expect.objectContaining({ description: 'Failed to copy invite code' })),
    );
  });

  it('gives the owner a new code, once confirmed, and shows it; other members have no such button', async () => {
    let code = 'K7PX9QMB';
    const fetchMock = installFakeServer({
      ...withGroup(),
      'GET /api/groups/g1': () => ({ status: 200, body: { ...detail(2), inviteCode: code } }),
      'POST /api/groups/g1/invite-code': () => ((code = 'W3RT6YUP'), { status: 200, body: { ...garcia, inviteCode: code } }),
    });
    await openPanel();
    fireEvent.click(screen.getByRole('button', { name: 'New invite code', hidden: true }));
    expect(await screen.findByText('Get a new invite code?')).toBeInTheDocument();
    expect(screen.getByText('The current code stops working; people who have it can no longer join.')).toBeInTheDocument();
    expect(fetchMock.mock.calls.some(([url]) => String(url).endsWith('/invite-code'))).toBe(false); // not before confirming
    // The confirmation's own "New invite code" (the popover's OK button, after the one that opened it).
    fireEvent.click(screen.getAllByRole('button', { name: 'New invite code', hidden: true }).at(-1)!);
    await waitFor(() => expect(screen.getByTestId('detail-invite-code')).toHaveTextContent('W3RT6YUP'));
    expect(fetchMock).toHaveBeenCalledWith('/api/groups/g1/invite-code', expect.objectContaining({ method: 'POST' }));
    expect(notifier.success).toHaveBeenCalledWith(expect.objectContaining({ title: 'New invite code' }));
  });

  it('has no New invite code for a member who is not the owner', async () => {
    installFakeServer({ ...withGroup(), 'GET /api/groups/g1': { status: 200, body: detail(2, 'u2') } });
    await openPanel();
    expect(screen.queryByRole('button', { name: 'New invite code', hidden: true })).not.toBeInTheDocument();
  });

  it('shares a text with the code, ignores share errors, and copies when sharing is unsupported', async () => {
    installFakeServer(withGroup());
    const share = jest.fn().mockRejectedValue(new DOMException('cancelled', 'AbortError'));
    const writeText = jest.fn().mockResolvedValue(undefined);
    Object.assign(navigator, { share, clipboard: { writeText } });
    await openPanel();
    fireEvent.click(screen.getByRole('button', { name: 'Share', hidden: true }));
    await waitFor(() => expect(share).toHaveBeenCalled());
    expect(share.mock.calls[0][0].text).toContain('K7PX9QMB');
    expect(writeText).not.toHaveBeenCalled();
    expect(notifier.error).not.toHaveBeenCalled();

    Object.assign(navigator, { share: undefined });
    fireEvent.click(screen.getByRole('button', { name: 'Share', hidden: true }));
    await waitFor(() => expect(writeText).toHaveBeenCalledWith('K7PX9QMB'));
    expect(notifier.success).toHaveBeenCalledWith(expect.objectContaining({ title: 'Copied!' }));
  });
});

describe('Home: Your Groups and Quick Stats', () => {
  function renderHome(groups: unknown[]) {
    installFakeServer({ ...base, 'GET /api/groups': { status: 200, body: groups } });
    render(
      <QueryClientProvider client={createQueryClient()}>
        <MemoryRouter initialEntries={['/']}>
          <AppRoutes />
        </MemoryRouter>
      </QueryClientProvider>,
    );
  }

  it('lists the first 3 groups as Active, +N more, and counts them all', async () => {
    const five = Array.from({ length: 5 }, (_, i) => ({ ...book, id: `g${i}`, name: `Group ${i + 1}` }));
    renderHome(five);
    // The lazy Home page compiles its modules on first render: slow on a busy machine.
    const card = (await screen.findByRole('heading', { name: 'Your Groups', hidden: true }, { timeout: 20000 })).closest('.ant-card') as HTMLElement;
    await within(card).findByText('Group 1', {}, { timeout: 10000 });
    expect(within(card).getByText('Group 3')).toBeInTheDocument();
    expect(within(card).queryByText('Group 4')).not.toBeInTheDocument();
    expect(within(card).getAllByText('Active')).toHaveLength(3);
    expect(within(card).getByText('+2 more')).toBeInTheDocument();
    const stats = screen.getByRole('heading', { name: 'Quick Stats', hidden: true }).closest('.ant-card') as HTMLElement;
    expect(within(stats).getByText('Groups').closest('.ant-statistic')).toHaveTextContent('5');
  });
});
