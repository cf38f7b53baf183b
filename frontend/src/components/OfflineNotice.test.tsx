import { QueryClientProvider } from '@tanstack/react-query';
import { render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { createQueryClient } from '../api';
import { AppRoutes } from '../App';

jest.setTimeout(30000);

function renderAt(path: string) {
  render(
    <QueryClientProvider client={createQueryClient()}>
      <MemoryRouter initialEntries={[path]}>
        <AppRoutes />
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

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
  });

  it('says the server cannot be reached when the browser is online', async () => {
    onLine.mockReturnValue(true);
    renderAt('/dashboard');
    expect(await screen.findByRole('heading', { name: "Joy can't be reached" })).toBeInTheDocument();
  });
});
