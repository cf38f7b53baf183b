import { QueryClientProvider } from '@tanstack/react-query';
import { render, screen, within } from '@testing-library/react';
import type { ReactNode } from 'react';
import { MemoryRouter } from 'react-router-dom';
import { createQueryClient } from '../api';
import InsightsPage from '../pages/Insights';
import { installFakeServer, summaryRoute } from '../testing/fakeServer';
import { ratingsFrom } from '../testing/ratings';
import type { RatingView } from '@joy/domain';

jest.mock('../charts/EChart', () => ({
  EChart: ({ description }: { description: ReactNode }) => <div data-testid="chart">{description}</div>,
}));

jest.setTimeout(30000);

function renderWith(ratings: RatingView[]) {
  installFakeServer({ 'GET /api/joy-ratings': { status: 200, body: ratings }, ...summaryRoute(() => ratings) });
  render(
    <QueryClientProvider client={createQueryClient()}>
      <MemoryRouter>
        <InsightsPage />
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

const card = (testId: string) => within(screen.getByTestId(testId));

describe('Joy Insights', () => {
  it('shows "No Data Yet" without ratings', async () => {
    renderWith([]);
    expect(await screen.findByRole('heading', { name: 'No Data Yet' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Rate Your Joy' })).toHaveAttribute('href', '/dashboard');
  });

  // A review (11-27): the trend and the 7-day average came from the list's first page (the newest made).
  it('takes the recent trend and the 7-day average from the latest ratings by day, not from what was made last', async () => {
    const daily = [4, 3, ...Array(25).fill(3.4)].map((score, i) => ({ ...ratingsFrom([score], `2026-11-${String(27 - i).padStart(2, '0')}T08:00:00Z`)[0], id: `d${i}` }));
    const missed = ratingsFrom(Array(50).fill(1), '2026-11-27T10:50:00Z', 60_000).map((r, i) => ({ ...r, id: `m${i}`, day: new Date(Date.UTC(2026, 7, 19 - i)).toISOString().slice(0, 10) }));
    installFakeServer({ 'GET /api/joy-ratings': { status: 200, body: missed }, ...summaryRoute(() => [...daily, ...missed]) });
    render(
      <QueryClientProvider client={createQueryClient()}>
        <MemoryRouter>
          <InsightsPage />
        </MemoryRouter>
      </QueryClientProvider>,
    );
    expect(await screen.findByTestId('card-recent-trend')).toHaveTextContent('+1.0');
    expect(card('card-seven-day').getByText('3.4')).toBeInTheDocument(); // (4.0 + 3.0 + 5 × 3.4) / 7
  });

  it('shows the cards, both charts with x/5 averages, and the personalized insights', async () => {
    // 7 ratings: latest 7 = all, so no Recent Improvement; Growth weakest (2.0); latest jumps from 3.0 to 3.8.
    const top = { relationships: 5, health: 4, purpose: 4, growth: 2, joy: 4 }; // 3.8
    const mid = { relationships: 4, health: 3, purpose: 3, growth: 2, joy: 3 }; // 3.0
    renderWith(ratingsFrom([top, mid, mid, mid, mid, mid, mid], '2025-08-19T12:00:00Z', 86_400_000));
    expect(await screen.findByRole('heading', { name: 'Joy Categories Breakdown' })).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Average Scores by Category' })).toBeInTheDocument();

    expect(card('card-recent-trend').getByText('+0.8')).toBeInTheDocument();
    expect(card('card-recent-trend').getByText('Improving since your previous rating')).toBeInTheDocument();
    expect(card('card-strongest').getByText('Relationships')).toBeInTheDocument();
    expect(card('card-strongest').getByText('Average 4.1/5')).toBeInTheDocument();
    expect(card('card-days').getByText('7')).toBeInTheDocument();
    expect(card('card-seven-day').getByText('3.1')).toBeInTheDocument();
    expect(card('card-seven-day').getByText('Your latest 7 ratings, +0.0 vs your overall average of 3.1')).toBeInTheDocument();

    const donut = screen.getByRole('table', { name: /Average score of each PERMA category \(out of 5\)/ });
    expect(within(donut).getAllByRole('row').slice(1).map((r) => r.textContent)).toEqual([
      'Relationships4.1/5',
      'Health3.1/5',
      'Purpose3.1/5',
      'Growth2.0/5',
      'Joy3.1/5',
    ]);
    expect(screen.getByRole('table', { name: /Average score of each PERMA category, 1 to 5/ })).toBeInTheDocument();

    const panel = within(screen.getByRole('heading', { name: 'Personalized Insights' }).closest('.ant-card') as HTMLElement);
    expect(panel.getAllByRole('heading', { level: 3 }).map((h) => h.textContent)).toEqual([
      'Great Progress!',
      'Growth Opportunity',
      'Consistency Milestone',
      'Your Strength: Relationships',
    ]);
    expect(panel.getByText(/Growth is your lowest area at 2\.0\/5/)).toBeInTheDocument();
  });
});
