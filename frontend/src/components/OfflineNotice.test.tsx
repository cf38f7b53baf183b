import { screen } from '@testing-library/react';
import { renderAppAt } from '../testing/renderApp';

jest.setTimeout(30000);

const renderAt = renderAppAt;

describe('when the sign-in check cannot reach the server (offline reload from the cached app shell)', () => {
  let onLine: jest.SpyInstance;
  beforeEach(() => {
    global.fetch = jest.fn(async () => {
      throw new TypeError('Failed to fetch');
    }) as unknown as typeof fetch;
    onLine = jest.spyOn(window.navigator, 'onLine', 'get');
  });
  afterEach(() => onLine.mockRestore());

  it.each(['/', '/dashboard', '/nope'])('%s says "You are offline" instead of the landing or 404 page', async (path) => {
    onLine.mockReturnValue(false);
    renderAt(path);
    expect(await screen.findByRole('heading', { name: 'You are offline' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Try again' })).toBeInTheDocument();
    expect(screen.queryByText('404 Page Not Found')).not.toBeInTheDocument();
    // Whether the person is signed in is unknown: no Sign In offered (it cannot reach the server either).
    expect(screen.queryByRole('button', { name: 'Sign In' })).not.toBeInTheDocument();
  });

  it('says the server cannot be reached when the browser is online', async () => {
    onLine.mockReturnValue(true);
    renderAt('/dashboard');
    expect(await screen.findByRole('heading', { name: "Joy can't be reached" })).toBeInTheDocument();
  });
});
