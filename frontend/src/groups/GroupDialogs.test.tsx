import { QueryClientProvider } from '@tanstack/react-query';
import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { createQueryClient } from '../api';
import { browser, resetUnauthorizedForTests } from '../lib/session';
import { antdPageTests } from '../testing/antdPages';
import { installFakeServer, type FakeRoutes } from '../testing/fakeServer';
import { CreateGroupDialog, JoinGroupDialog } from './GroupDialogs';

const FREE_PLAN = 'Free plan allows up to 3 groups. Upgrade to Joy Premium for unlimited groups.';
const group = { id: 'g1', name: 'Garcia Family', description: null, inviteCode: 'K7PX9QMB', createdAt: '2026-03-05T12:00:00.000Z' };

type Respond = (value: { status: number; body?: unknown }) => void;

function renderDialog(which: 'create' | 'join') {
  const client = createQueryClient();
  const invalidate = jest.spyOn(client, 'invalidateQueries');
  const onClose = jest.fn();
  const Dialog = which === 'create' ? CreateGroupDialog : JoinGroupDialog;
  render(
    <QueryClientProvider client={client}>
      <MemoryRouter>
        <Dialog open onClose={onClose} />
      </MemoryRouter>
    </QueryClientProvider>,
  );
  return { onClose, invalidate };
}

const notifier = antdPageTests();

describe('Create Group dialog', () => {
  it('has a required Group Name and an optional 3-row Description', async () => {
    installFakeServer({});
    renderDialog('create');
    expect(await screen.findByRole('dialog', { name: 'Create Group' })).toBeInTheDocument();
    const name = screen.getByLabelText('Group Name');
    expect(name).toHaveAttribute('aria-required', 'true');
    // Named by its own aria-label: Chrome puts the label's CSS asterisk (::before, which jsdom does not compute) in
    // the label's text, "* Group Name".
    expect(name).toHaveAttribute('aria-label', 'Group Name');
    const description = screen.getByLabelText('Description (Optional)');
    expect(description.tagName).toBe('TEXTAREA');
    expect(description).toHaveAttribute('rows', '3');
    expect(description).not.toHaveAttribute('aria-required');
    expect(screen.getByRole('button', { name: 'Create Group' })).toBeEnabled();
  });

  it('shows how many characters the name and the description have of their limits', async () => {
    installFakeServer({});
    renderDialog('create');
    const name = await screen.findByLabelText('Group Name');
    expect(screen.getByText('0 / 80')).toBeInTheDocument();
    expect(screen.getByText('0 / 500')).toBeInTheDocument();
    fireEvent.change(name, { target: { value: 'Garcia Family' } });
    fireEvent.change(screen.getByLabelText('Description (Optional)'), { target: { value: 'Sunday calls' } });
    expect(screen.getByText('13 / 80')).toBeInTheDocument();
    expect(screen.getByText('12 / 500')).toBeInTheDocument();
    // An emoji, a flag or a family is one character, as the server counts it.
    fireEvent.change(name, { target: { value: 'Garcias 🇲🇽👨‍👩‍👧❤️' } });
    expect(screen.getByText('11 / 80')).toBeInTheDocument();
  });

  it('refuses a blank name (after trimming) with the toast, without calling the server', async () => {
    const fetchMock = installFakeServer({});
    const { onClose } = renderDialog('create');
    fireEvent.change(await screen.findByLabelText('Group Name'), { target: { value: '   ' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create Group' }));
    expect(notifier.error).toHaveBeenCalledWith(expect.objectContaining({ title: 'Error', description: 'Group name is required.' }));
    expect(fetchMock.mock.calls.filter(([, init]) => init?.method === 'POST')).toEqual([]);
    expect(onClose).not.toHaveBeenCalled();
  });

  it('tells a blank name under the field too: invalid, described by the message, and focused', async () => {
    installFakeServer({});
    renderDialog('create');
    const name = await screen.findByLabelText('Group Name');
    expect(name).not.toHaveAttribute('aria-invalid');
    const submit = screen.getByRole('button', { name: 'Create Group' });
    act(() => submit.focus());
    fireEvent.click(submit);
    expect(name).toHaveAttribute('aria-invalid', 'true');
    expect(name).toHaveAccessibleDescription('Group name is required.');
    expect(name).toHaveFocus();
    fireEvent.change(name, { target: { value: 'Garcia' } });
    expect(name).not.toHaveAttribute('aria-invalid');
    expect(screen.queryByText('Group name is required.')).not.toBeInTheDocument();
  });

  it('shows Creating... while pending, then toasts, refetches the list, closes and clears', async () => {
    let respond: Respond = () => undefined;
    const fetchMock = installFakeServer({
      'POST /api/groups': () => new Promise((resolve) => (respond = resolve)),
      'GET /api/groups': { status: 200, body: [group] },
    });
    const { onClose, invalidate } = renderDialog('create');
    fireEvent.change(await screen.findByLabelText('Group Name'), { target: { value: '  Garcia Family ' } });
    fireEvent.change(screen.getByLabelText('Description (Optional)'), { target: { value: 'Sunday calls' } });
    // Twice in one frame (a double click, Enter twice), before the button is disabled: one request.
    fireEvent.submit(screen.getByLabelText('Group Name').closest('form')!);
    fireEvent.submit(screen.getByLabelText('Group Name').closest('form')!);

    const pending = await screen.findByRole('button', { name: 'Creating...' });
    expect(pending).toBeDisabled();
    const posts = fetchMock.mock.calls.filter(([url, init]) => url === '/api/groups' && init?.method === 'POST');
    expect(posts).toHaveLength(1);
    expect(posts[0][1]).toEqual(expect.objectContaining({ body: JSON.stringify({ name: 'Garcia Family', description: 'Sunday calls' }) }));
    // With a key: sent again after a lost answer, the server answers the same group.
    expect(new Headers(posts[0][1]?.headers).get('Idempotency-Key')).toMatch(/^[0-9a-f]{32}$/);

    await act(async () => respond({ status: 201, body: group }));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(notifier.success).toHaveBeenCalledWith(expect.objectContaining({ title: 'Group created successfully!' }));
    expect(invalidate).toHaveBeenCalledWith({ queryKey: ['/api/groups'] });
    expect(screen.getByLabelText('Group Name')).toHaveValue('');
    expect(screen.getByLabelText('Description (Optional)')).toHaveValue('');
    expect(screen.getByRole('button', { name: 'Create Group' })).toBeEnabled();
  });

  it('toasts the spec failure text when the server fails', async () => {
    installFakeServer({ 'POST /api/groups': { status: 500, body: { statusCode: 500, code: 'internal', message: 'Internal server error' } } });
    const { onClose } = renderDialog('create');
    fireEvent.change(await screen.findByLabelText('Group Name'), { target: { value: 'Garcia' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create Group' }));
    await waitFor(() =>
      expect(notifier.error).toHaveBeenCalledWith(
        expect.objectContaining({ title: 'Error', description: 'Failed to create group. Please try again.' }),
      ),
    );
    expect(onClose).not.toHaveBeenCalled();
    expect(screen.getByLabelText('Group Name')).toHaveValue('Garcia');
  });

  it('shows the free-plan message once, in the dialog with an Upgrade link to /subscribe, not also as a toast', async () => {
    installFakeServer({ 'POST /api/groups': { status: 403, body: { statusCode: 403, code: 'plan.group_limit', message: FREE_PLAN } } });
    const { onClose } = renderDialog('create');
    fireEvent.change(await screen.findByLabelText('Group Name'), { target: { value: 'Fourth' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create Group' }));
    expect(await screen.findByRole('link', { name: /Upgrade/ })).toHaveAttribute('href', '/subscribe');
    expect(screen.getAllByText(FREE_PLAN)).toHaveLength(1);
    expect(notifier.error).not.toHaveBeenCalled();
    expect(onClose).not.toHaveBeenCalled();
  });

  it.each(['create', 'join'] as const)('%s: tells a free member already in 3 groups of the limit as it opens, once, still once after the refusal', async (which) => {
    const three = [1, 2, 3].map((n) => ({ ...group, id: `g${n}` }));
    installFakeServer({
      'GET /api/groups': { status: 200, body: three },
      'GET /api/subscription-status': { status: 200, body: { isPremium: false, status: null } },
      [which === 'create' ? 'POST /api/groups' : 'POST /api/groups/join']: { status: 403, body: { statusCode: 403, code: 'plan.group_limit', message: FREE_PLAN } },
    });
    renderDialog(which);
    expect(await screen.findByText(FREE_PLAN)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: /Upgrade/ })).toHaveAttribute('href', '/subscribe');
    fireEvent.change(screen.getByLabelText(which === 'create' ? 'Group Name' : 'Invite Code'), { target: { value: which === 'create' ? 'Fourth' : 'K7PX9QMB' } });
    fireEvent.click(screen.getByRole('button', { name: which === 'create' ? 'Create Group' : 'Join Group' }));
    await waitFor(() => expect(screen.getByRole('button', { name: which === 'create' ? 'Create Group' : 'Join Group' })).toBeEnabled());
    expect(screen.getAllByText(FREE_PLAN)).toHaveLength(1);
  });

  it('says nothing of the limit to a premium member in 3 groups', async () => {
    installFakeServer({
      'GET /api/groups': { status: 200, body: [1, 2, 3].map((n) => ({ ...group, id: `g${n}` })) },
      'GET /api/subscription-status': { status: 200, body: { isPremium: true, status: 'active' } },
    });
    renderDialog('create');
    await screen.findByRole('dialog', { name: 'Create Group' });
    await act(() => new Promise((resolve) => setTimeout(resolve, 50)));
    expect(screen.queryByText(FREE_PLAN)).not.toBeInTheDocument();
  });

  it('leaves a 401 to the app-wide handler (no failure toast of its own)', async () => {
    resetUnauthorizedForTests();
    const navigate = jest.spyOn(browser, 'navigate').mockImplementation(() => undefined);
    installFakeServer({ 'POST /api/groups': { status: 401, body: { statusCode: 401, code: 'auth.unauthorized', message: 'Unauthorized' } } });
    renderDialog('create');
    fireEvent.change(await screen.findByLabelText('Group Name'), { target: { value: 'Garcia' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create Group' }));
    await waitFor(() => expect(notifier.error).toHaveBeenCalledWith(expect.objectContaining({ title: 'Unauthorized' })));
    expect(notifier.error).not.toHaveBeenCalledWith(expect.objectContaining({ description: 'Failed to create group. Please try again.' }));
    await waitFor(() => expect(navigate).toHaveBeenCalledWith('/api/login'));
    navigate.mockRestore();
  });
});

describe('Join Group dialog', () => {
  it('has a required Invite Code field', async () => {
    installFakeServer({});
    renderDialog('join');
    expect(await screen.findByRole('dialog', { name: 'Join Group' })).toBeInTheDocument();
    const code = screen.getByLabelText('Invite Code');
    expect(code).toHaveAttribute('aria-required', 'true');
    // Without the label's CSS asterisk in its name (see Group Name), and with the hint as its description.
    expect(code).toHaveAttribute('aria-label', 'Invite Code');
    expect(code).toHaveAccessibleDescription('Ask a member of the group for its 8-character code.');
    expect(code).not.toHaveAttribute('aria-invalid');
  });

  const unknownCode = { status: 404, body: { statusCode: 404, code: 'group.invite_not_found', message: 'Invite code not found.' } };
  it.each<[string, string, FakeRoutes, string]>([
    ['a blank code', ' ', {}, 'Invite code is required.'],
    ['an unknown code', 'ZZZZZZZZ', { 'POST /api/groups/join': unknownCode }, 'Invite code not found.'],
  ])('tells %s under the field: invalid, described by the message and the hint, and focused', async (_, value, routes, message) => {
    installFakeServer(routes);
    renderDialog('join');
    const code = await screen.findByLabelText('Invite Code');
    fireEvent.change(code, { target: { value } });
    const submit = screen.getByRole('button', { name: 'Join Group' });
    act(() => submit.focus());
    fireEvent.click(submit);
    await waitFor(() => expect(code).toHaveAttribute('aria-invalid', 'true'));
    expect(code).toHaveAccessibleDescription(`${message} Ask a member of the group for its 8-character code.`);
    await waitFor(() => expect(code).toHaveFocus());
    fireEvent.change(code, { target: { value: 'K7PX9QMB' } });
    expect(code).not.toHaveAttribute('aria-invalid');
    expect(code).toHaveAccessibleDescription('Ask a member of the group for its 8-character code.');
  });

  it('refuses a blank code with the toast', async () => {
    const fetchMock = installFakeServer({});
    renderDialog('join');
    fireEvent.change(await screen.findByLabelText('Invite Code'), { target: { value: ' ' } });
    fireEvent.click(screen.getByRole('button', { name: 'Join Group' }));
    expect(notifier.error).toHaveBeenCalledWith(expect.objectContaining({ description: 'Invite code is required.' }));
    expect(fetchMock.mock.calls.filter(([, init]) => init?.method === 'POST')).toEqual([]);
  });

  it('shows Joining... while pending, then toasts, refetches, closes and clears', async () => {
    let respond: Respond = () => undefined;
    const fetchMock = installFakeServer({
      'POST /api/groups/join': () => new Promise((resolve) => (respond = resolve)),
      'GET /api/groups': { status: 200, body: [group] },
    });
    const { onClose, invalidate } = renderDialog('join');
    fireEvent.change(await screen.findByLabelText('Invite Code'), { target: { value: ' k7px9qmb ' } });
    fireEvent.click(screen.getByRole('button', { name: 'Join Group' }));
    expect(await screen.findByRole('button', { name: 'Joining...' })).toBeDisabled();
    expect(fetchMock).toHaveBeenCalledWith(
      '/api/groups/join',
      expect.objectContaining({ method: 'POST', body: JSON.stringify({ inviteCode: 'K7PX9QMB' }) }),
    );
    await act(async () => respond({ status: 200, body: group }));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(notifier.success).toHaveBeenCalledWith(expect.objectContaining({ title: 'Joined group successfully!' }));
    expect(invalidate).toHaveBeenCalledWith({ queryKey: ['/api/groups'] });
    expect(screen.getByLabelText('Invite Code')).toHaveValue('');
  });

  it('takes a code written with a dash or spaces, and sends it as issued', async () => {
    const fetchMock = installFakeServer({ 'POST /api/groups/join': { status: 200, body: group }, 'GET /api/groups': { status: 200, body: [group] } });
    const { onClose } = renderDialog('join');
    fireEvent.change(await screen.findByLabelText('Invite Code'), { target: { value: ' k7px-9qmb ' } });
    fireEvent.click(screen.getByRole('button', { name: 'Join Group' }));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(fetchMock).toHaveBeenCalledWith('/api/groups/join', expect.objectContaining({ body: JSON.stringify({ inviteCode: 'K7PX9QMB' }) }));
    expect(notifier.error).not.toHaveBeenCalled();
  });

  it("tells a code that is too long in plain words (the server's reason), not as a field name", async () => {
    const tooLong = 'An invite code has 8 letters and numbers, like K7PX9QMB.';
    installFakeServer({
      'POST /api/groups/join': { status: 400, body: { statusCode: 400, code: 'request.invalid', message: tooLong, errors: [{ field: 'inviteCode', message: tooLong }] } },
    });
    renderDialog('join');
    fireEvent.change(await screen.findByLabelText('Invite Code'), { target: { value: 'XCFF-UCGQ-7' } });
    fireEvent.click(screen.getByRole('button', { name: 'Join Group' }));
    await waitFor(() =>
      expect(notifier.error).toHaveBeenCalledWith(
        expect.objectContaining({ description: `Failed to join group. Please check the invite code. ${tooLong}` }),
      ),
    );
    expect(JSON.stringify(notifier.error.mock.calls)).not.toMatch(/inviteCode|at most/);
  });

  it('keeps the spec text and adds the server reason for an unknown code or a second join', async () => {
    installFakeServer({ 'POST /api/groups/join': { status: 404, body: { statusCode: 404, code: 'group.invite_not_found', message: 'Invite code not found.' } } });
    renderDialog('join');
    fireEvent.change(await screen.findByLabelText('Invite Code'), { target: { value: 'ZZZZZZZZ' } });
    fireEvent.click(screen.getByRole('button', { name: 'Join Group' }));
    await waitFor(() =>
      expect(notifier.error).toHaveBeenCalledWith(
        expect.objectContaining({
          title: 'Error',
          description: 'Failed to join group. Please check the invite code. Invite code not found.',
        }),
      ),
    );
  });

  it('offers the Upgrade on the free-plan limit, told once', async () => {
    installFakeServer({ 'POST /api/groups/join': { status: 403, body: { statusCode: 403, code: 'plan.group_limit', message: FREE_PLAN } } });
    renderDialog('join');
    fireEvent.change(await screen.findByLabelText('Invite Code'), { target: { value: 'K7PX9QMB' } });
    fireEvent.click(screen.getByRole('button', { name: 'Join Group' }));
    expect(await screen.findByRole('link', { name: /Upgrade/ })).toHaveAttribute('href', '/subscribe');
    expect(screen.getAllByText(FREE_PLAN)).toHaveLength(1);
    expect(notifier.error).not.toHaveBeenCalled();
  });
});
