import { screen } from '@testing-library/react';
import type { ReactNode } from 'react';
import { installFakeServer, summaryRoute } from '../testing/fakeServer';
import { ratingsFrom } from '../testing/ratings';
import { renderPage } from '../testing/renderApp';
import DashboardPage from './Dashboard';

// Canvas charts do not run in jsdom: render only the chart's text alternative.
jest.mock('../charts/EChart', () => ({
  EChart: ({ description }: { description: ReactNode }) => <div data-testid="chart">{description}</div>,
}));

jest.setTimeout(30_000);

describe('Joy Dashboard with one rating', () => {
  it('says the charts are on their way in a standing note, not an alert announced at every visit', async () => {
    const ratings = ratingsFrom([4]);
    installFakeServer({ 'GET /api/joy-ratings': { status: 200, body: ratings }, ...summaryRoute(() => ratings) });
    renderPage(<DashboardPage />);
    const notice = (await screen.findByText('Your charts are on their way')).closest('.ant-alert');
    expect(notice).toHaveAttribute('role', 'note');
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });
});
