import { QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { App as AntApp } from 'antd';
import { createMemoryRouter, Link, RouterProvider } from 'react-router-dom';
import { createQueryClient } from '../api';
import { LeaveGuardProvider } from '../components/LeaveGuard';
import { useAuth } from '../auth';
import { bindNotifier } from '../lib/toast';
import SettingsPage from '../pages/Settings';
import { zoneMatches } from './SettingsForm';
import { installFakeServer, type FakeRoutes } from '../testing/fakeServer';

jest.setTimeout(30_000);

const notifier = { error: jest.fn(), success: jest.fn(), info: jest.fn(), warning: jest.fn(), open: jest.fn(), destroy: jest.fn() };
const saved = { firstName: 'Ada', timeZone: 'Europe/Paris', reminderTime: null, acceptCareActions: true };
const patchesOf = (fetchMock: jest.Mock) =>
  fetchMock.mock.calls.filter(([url, init]) => url === '/api/settings' && init?.method === 'PATCH').map(([, init]) => JSON.parse(init.body));

/** What the header shows of the signed-in person (useAuth, as AppLayout reads it). */
function Greeting() {
  const { user } = useAuth();
  return <p>{user ? `Hi, ${user.firstName}` : null}</p>;
}

function renderSettings(routes: FakeRoutes) {
  const fetchMock = installFakeServer({ 'GET /api/settings': { status: 200, body: saved }, ...routes });
  render(
    <AntApp>
      <QueryClientProvider client={createQueryClient()}>
        <RouterProvider
          router={createMemoryRouter(
            [
              {
                path: '/settings',
                element: (
                  <LeaveGuardProvider>
                    <Greeting />
                    <Link to="/dashboard">Dashboard</Link>
                    <SettingsPage />
                  </LeaveGuardProvider>
                ),
              },
              { path: '/dashboard', element: <h1>Dashboard page</h1> },
            ],
            { initialEntries: ['/settings'] },
          )}
        />
      </QueryClientProvider>
    </AntApp>,
  );
  return fetchMock;
}

/** jsdom has no MessageChannel, which antd's Form uses to batch its watchers: a macrotask stand-in. */
class MacroTaskChannel {
  port1: { onmessage: ((event: { data: unknown }) => void) | null } = { onmessage: null };
  port2 = { postMessage: (data: unknown) => setTimeout(() => this.port1.onmessage?.({ data }), 0) };
}
const globals = globalThis as unknown as { MessageChannel?: unknown };
globals.MessageChannel ??= MacroTaskChannel;

beforeEach(() => {
  jest.clearAllMocks();
  bindNotifier(notifier);
});

describe('Settings page', () => {
  it('shows the saved settings and sends only what changed', async () => {
    const fetchMock = renderSettings({
      'PATCH /api/settings': { status: 200, body: { ...saved, firstName: 'Adele', reminderTime: '07:30' } },
    });
    const name = await screen.findByLabelText('First name');
    await waitFor(() => expect(name).toHaveValue('Ada'));
    expect(screen.getByText('Europe / Paris')).toBeInTheDocument();
    const save = screen.getByText('Save Settings').closest('button')!;
    expect(save).toBeDisabled();

    fireEvent.change(name, { target: { value: '  Adele ' } });
    fireEvent.click(screen.getByRole('switch', { name: 'Remind me to rate my day' }));
    fireEvent.change(screen.getByLabelText('Reminder time'), { target: { value: '07:30' } });
    await waitFor(() => expect(save).toBeEnabled());
    fireEvent.click(save);
    await waitFor(() => expect(patchesOf(fetchMock)).toEqual([{ firstName: 'Adele', reminderTime: '07:30' }]));
    await waitFor(() => expect(notifier.success).toHaveBeenCalledWith(expect.objectContaining({ title: 'Settings saved' })));
  });

  it('shows a new first name where the app greets the person at once, without a reload', async () => {
    let firstName = 'Ada';
    renderSettings({
      'GET /api/auth/user': () => ({ status: 200, body: { id: 'u1', email: 'ada@example.com', firstName, profileImageUrl: null } }),
      'PATCH /api/settings': () => {
        firstName = 'Adele';
        return { status: 200, body: { ...saved, firstName } };
      },
    });
    await screen.findByText('Hi, Ada');
    const name = await screen.findByLabelText('First name');
    await waitFor(() => expect(name).toHaveValue('Ada'));
    // A longer paste is cut to 80 characters as people count them: 80 sunflowers, not 40.
    fireEvent.change(name, { target: { value: '🌻'.repeat(85) } });
    expect(name).toHaveValue('🌻'.repeat(80));
    fireEvent.change(name, { target: { value: 'Adele' } });
    const save = screen.getByText('Save Settings').closest('button')!;
    await waitFor(() => expect(save).toBeEnabled());
    fireEvent.click(save);
    await screen.findByText('Hi, Adele');
  });

  it('finds a time zone typed as its name or as it is listed', () => {
    const la = { value: 'America/Los_Angeles' };
    for (const typed of ['America/Los', 'america/los_an', 'Los Angeles', 'america / los angeles', 'angeles']) expect(zoneMatches(typed, la)).toBe(true);
    expect(zoneMatches('Paris', la)).toBe(false);
  });

  it("shows the server's reason when it refuses a setting", async () => {
    const message = 'timeZone must be an IANA time zone such as Europe/Paris';
    renderSettings({
      'PATCH /api/settings': { status: 400, body: { statusCode: 400, code: 'request.invalid', message, errors: [{ field: 'timeZone', message }] } },
    });
    const name = await screen.findByLabelText('First name');
    await waitFor(() => expect(name).toHaveValue('Ada'));
    fireEvent.change(name, { target: { value: 'Ava' } });
    const save = screen.getByText('Save Settings').closest('button')!;
    await waitFor(() => expect(save).toBeEnabled());
    fireEvent.click(save);
    await screen.findByText(message);
  });

  it('asks before leaving changes unsaved: Stay keeps them, Leave goes on; nothing to save, no question', async () => {
    renderSettings({});
    const name = await screen.findByLabelText('First name');
    await waitFor(() => expect(name).toHaveValue('Ada'));
    fireEvent.change(name, { target: { value: 'Adele' } });
    await waitFor(() => expect(screen.getByText('Save Settings').closest('button')).toBeEnabled());
    fireEvent.click(screen.getByRole('link', { name: 'Dashboard' }));
    const dialog = await screen.findByRole('dialog', { name: 'Leave without saving?' });
    expect(dialog).toHaveTextContent('Your changes to your settings are not saved yet.');
    fireEvent.click(screen.getByRole('button', { name: 'Stay on this page' }));
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Leave without saving?' })).toBeNull());
    expect(screen.getByLabelText('First name')).toHaveValue('Adele');
    expect(screen.queryByText('Dashboard page')).toBeNull();

    fireEvent.click(screen.getByRole('link', { name: 'Dashboard' }));
    fireEvent.click(await screen.findByRole('button', { name: 'Leave without saving' }));
    await screen.findByText('Dashboard page');
  });

  it('lets a person with nothing unsaved leave without a question', async () => {
    renderSettings({});
    const name = await screen.findByLabelText('First name');
    await waitFor(() => expect(name).toHaveValue('Ada'));
    fireEvent.click(screen.getByRole('link', { name: 'Dashboard' }));
    await screen.findByText('Dashboard page');
    expect(screen.queryByRole('dialog')).toBeNull();
  });
});
