import { screen, within } from '@testing-library/react';
import { renderAppAt } from '../testing/renderApp';
import { installFakeServer, summaryRoute } from '../testing/fakeServer';

jest.setTimeout(30000);

const starting = { status: 503, body: { statusCode: 503, code: 'server.starting', message: 'Joy is starting. Please try again in a moment.' }, headers: { 'Retry-After': '2' } };

describe('while Joy\'s server is starting (the first start after an update builds the read models) or busy', () => {
  it('says Joy is starting with how far it is, then goes on to the page by itself once the server is up', async () => {
    let up = false;
    installFakeServer({
      'GET /api/auth/user': async () => (up ? { status: 200, body: { id: 'u1', email: 'maya@example.com', firstName: 'Maya', profileImageUrl: null } } : starting),
      'GET /api/health': async () => (up ? { status: 200, body: { status: 'ok' } } : { status: 503, body: { status: 'starting', progress: { position: 30_000, head: 120_000 } } }),
      'GET /api/subscription-status': { status: 200, body: { isPremium: false, status: 'free' } },
      'GET /api/joy-ratings': { status: 200, body: [] },
      ...summaryRoute(() => []),
      'GET /api/joy-ratings/latest': { status: 200, body: null },
      'GET /api/groups': { status: 200, body: [] },
    });
    renderAppAt('/');
    expect(await screen.findByRole('heading', { name: 'Joy is starting' })).toBeInTheDocument();
    expect(screen.getByText(/This page goes on by itself as soon as it is ready/)).toBeInTheDocument();
    const progress = await screen.findByRole('status');
    expect(within(progress).getByText('25%')).toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: "Joy can't be reached" })).not.toBeInTheDocument();
    expect(screen.queryByText('Find It. Measure It. Share It.')).not.toBeInTheDocument();

    up = true;
    expect(await screen.findByRole('heading', { name: 'Welcome back, Maya!' }, { timeout: 6000 })).toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'Joy is starting' })).not.toBeInTheDocument();
  });

  it('asks a busy server (load shed) again a few times before saying it is busy', async () => {
    const busy = { status: 503, body: { statusCode: 503, code: 'server.busy', message: 'Joy is busy.' }, headers: { 'Retry-After': '2' } };
    let asked = 0;
    installFakeServer({ 'GET /api/auth/user': async () => (asked++, busy) });
    renderAppAt('/dashboard');
    expect(await screen.findByRole('heading', { name: 'Joy is busy' }, { timeout: 10_000 })).toBeInTheDocument();
    expect(screen.getByText('Many people are using Joy right now. Please try again in a moment.')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Try again' })).toBeInTheDocument();
    // The first answer and three more tries, 2 s apart.
    expect(asked).toBe(4);
  });

  it('keeps the open pages (help, privacy, terms) readable meanwhile', async () => {
    installFakeServer({ 'GET /api/auth/user': starting, 'GET /api/health': { status: 503, body: { status: 'starting' } } });
    renderAppAt('/help');
    expect(await screen.findByRole('heading', { name: 'Help & Support', level: 1 })).toBeInTheDocument();
  });
});
