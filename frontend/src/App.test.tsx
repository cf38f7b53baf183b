import { screen, waitFor } from '@testing-library/react';
import { browser } from './lib/session';
import { renderAppAt } from './testing/renderApp';
import { installFakeServer, summaryRoute } from './testing/fakeServer';

const signedOut = { 'GET /api/auth/user': { status: 401, body: { statusCode: 401, code: 'auth.unauthorized', message: 'Unauthorized' } } };
const signedIn = (firstName: string | null, isPremium = false) => ({
  'GET /api/auth/user': { status: 200, body: { id: 'u1', email: 'maya@example.com', firstName, profileImageUrl: null } },
  'GET /api/subscription-status': { status: 200, body: { isPremium, status: isPremium ? 'active' : 'free' } },
  'GET /api/joy-ratings': { status: 200, body: [] },
  ...summaryRoute(() => []),
  'GET /api/joy-ratings/latest': { status: 200, body: null },
  'GET /api/groups': { status: 200, body: [] },
});

const renderAt = renderAppAt;

jest.setTimeout(30000);

describe('routes', () => {
  it('shows the landing page at / when signed out', async () => {
    installFakeServer(signedOut);
    renderAt('/');
    expect(await screen.findByText('Find It. Measure It. Share It.')).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: '5 Pillars of Joy' })).toBeInTheDocument();
    expect(screen.getByText('2,847')).toBeInTheDocument();
    // The hero's other two lead somewhere: how a rating goes (help), and the pillars on this page.
    expect(screen.getByRole('link', { name: /Watch Demo/ })).toHaveAttribute('href', '/help#rating');
    expect(screen.getByRole('link', { name: 'Learn More' })).toHaveAttribute('href', '#pillars');
    expect(document.getElementById('pillars')).toContainElement(screen.getByRole('heading', { name: '5 Pillars of Joy' }));
  });

  it("starts sign-in from the landing page's Sign In, and account creation from Get Started Free and Sign Up (buttons of forms to /api/login)", async () => {
    const navigate = jest.spyOn(browser, 'navigate').mockImplementation(() => undefined);
    try {
      installFakeServer(signedOut);
      renderAt('/');
      for (const [name, url, signupField] of [
        ['Sign In', '/api/login', null],
        ['Get Started Free', '/api/login?signup=1', '1'],
        ['Sign Up', '/api/login?signup=1', '1'],
      ] as const) {
        navigate.mockClear();
        const button = await screen.findByRole('button', { name });
        // Without a script (the prerendered page) the form goes there itself: a GET form sends its fields as the query.
        const form = button.closest('form')!;
        expect(form).toHaveAttribute('action', '/api/login');
        expect(new URLSearchParams(new FormData(form) as unknown as Record<string, string>).get('signup')).toBe(signupField);
        button.click();
        expect(navigate).toHaveBeenCalledWith(url);
      }
    } finally {
      navigate.mockRestore();
    }
  });

  it('sends a signed-out visitor of a signed-in page to sign in, to come back to that page (PRODUCT.md)', async () => {
    const navigate = jest.spyOn(browser, 'navigate').mockImplementation(() => undefined);
    try {
      for (const path of ['/dashboard', '/insights', '/groups?group=g-1', '/account', '/subscribe', '/settings']) {
        navigate.mockClear();
        installFakeServer(signedOut);
        const { unmount } = renderAt(path);
        await waitFor(() => expect(navigate).toHaveBeenCalledWith(`/api/login?returnTo=${encodeURIComponent(path)}`));
        expect(screen.queryByRole('heading', { name: '404 Page Not Found' })).not.toBeInTheDocument();
        unmount();
      }
    } finally {
      navigate.mockRestore();
    }
  });

  it('shows the 404 page for an unknown path when signed out', async () => {
    installFakeServer(signedOut);
    renderAt('/no-such-page');
    expect(await screen.findByRole('heading', { name: '404 Page Not Found' })).toBeInTheDocument();
  });

  it('shows the help page when signed out', async () => {
    installFakeServer(signedOut);
    renderAt('/help');
    expect(await screen.findByRole('heading', { name: 'Help & Support', level: 1 })).toBeInTheDocument();
  });

  it('greets a signed-in user on Home, with Upgrade for a free plan', async () => {
    installFakeServer(signedIn('Maya'));
    renderAt('/');
    expect(await screen.findByRole('heading', { name: 'Welcome back, Maya!' })).toBeInTheDocument();
    expect(screen.getByText("How are you feeling today? Let's track your joy together.")).toBeInTheDocument();
    expect(await screen.findAllByRole('link', { name: /Upgrade/ })).not.toHaveLength(0);
    expect(await screen.findByRole('link', { name: 'Join Your First Group' })).toHaveAttribute('href', '/groups');
    expect(screen.queryByText('Your Current Joy Level')).not.toBeInTheDocument();
    expect(screen.queryByRole('link', { name: /Care Sent/ })).not.toBeInTheDocument();
  });

  it('hides Upgrade for premium users and greets by e-mail without a first name', async () => {
    installFakeServer(signedIn(null, true));
    renderAt('/');
    expect(await screen.findByRole('heading', { name: 'Welcome back, maya!' })).toBeInTheDocument();
    expect(await screen.findAllByRole('link', { name: /Dashboard/ })).not.toHaveLength(0);
    expect(screen.queryByRole('link', { name: /Upgrade/ })).not.toBeInTheDocument();
    // Premium members see the care they sent in the navigation instead.
    const careSent = await screen.findAllByRole('link', { name: /Care Sent/ });
    expect(careSent[0]).toHaveAttribute('href', '/care/sent');
  });

  it('offers no Upgrade to a person whose Premium is paused (their account page leads to the billing portal)', async () => {
    installFakeServer({ ...signedIn('Maya'), 'GET /api/subscription-status': { status: 200, body: { isPremium: false, status: 'lapsed' } } });
    renderAt('/');
    expect(await screen.findByRole('heading', { name: 'Welcome back, Maya!' })).toBeInTheDocument();
    expect(await screen.findAllByRole('link', { name: /Dashboard/ })).not.toHaveLength(0);
    expect(screen.queryByRole('link', { name: /Upgrade/ })).not.toBeInTheDocument();
  });

  /** Home for Maya in Los Angeles (her setting), her latest rating made 2026-11-28T03:21Z for `day`. */
  const homeWithLatestFor = (day: string) => {
    const latest = { id: 'r1', relationships: 3, health: 3, purpose: 3, growth: 3, joy: 3, overallScore: 3, createdAt: '2026-11-28T03:21:00.000Z', day };
    installFakeServer({
      ...signedIn('Maya'),
      'GET /api/joy-ratings/latest': { status: 200, body: latest },
      'GET /api/settings': { status: 200, body: { firstName: 'Maya', timeZone: 'America/Los_Angeles', reminderTime: null, acceptCareActions: true } },
    });
    renderAt('/');
  };

  it("says when the latest rating was made in the person's zone (their setting), not the device's", async () => {
    homeWithLatestFor('2026-11-27');
    expect(await screen.findByText(/^Last rated Nov 27, 2026, 7:21\sPM$/)).toBeInTheDocument();
  });

  it('leads the caption with the day when the latest rating is of a missed day rated later (not read as today rated)', async () => {
    homeWithLatestFor('2026-11-23');
    expect(await screen.findByText(/^For Nov 23, 2026 \(saved Nov 27, 2026, 7:21\sPM\)$/)).toBeInTheDocument();
    expect(screen.queryByText(/^Last rated/)).not.toBeInTheDocument();
  });

  it('shows the 404 page for unknown paths when signed in', async () => {
    installFakeServer(signedIn('Maya'));
    renderAt('/nope');
    expect(await screen.findByRole('heading', { name: '404 Page Not Found' })).toBeInTheDocument();
  });
});
