import { QueryClientProvider } from '@tanstack/react-query';
import { render, screen, waitFor } from '@testing-library/react';
import { createQueryClient } from '../api';
import { installFakeServer } from '../testing/fakeServer';
import { DemoBanner } from './DemoBanner';

function renderBanner(install: { demo: boolean; optIns: string[] }) {
  const fetchMock = installFakeServer({ 'GET /api/install': { status: 200, body: install } });
  render(
    <QueryClientProvider client={createQueryClient()}>
      <DemoBanner />
    </QueryClientProvider>,
  );
  return fetchMock;
}

describe('DemoBanner', () => {
  it('shows "Demo" and the conveniences that are on, on a demo install', async () => {
    renderBanner({ demo: true, optIns: ['AUTH_DEV_LOGIN', 'BILLING_SANDBOX'] });
    const banner = await screen.findByRole('note', { name: 'Demo install' });
    expect(banner).toHaveTextContent('Demo');
    expect(banner).toHaveTextContent('AUTH_DEV_LOGIN, BILLING_SANDBOX');
  });

  it('shows nothing on a real install', async () => {
    const fetchMock = renderBanner({ demo: false, optIns: [] });
    await waitFor(() => expect(fetchMock).toHaveBeenCalled());
    expect(screen.queryByRole('note')).not.toBeInTheDocument();
  });
});
