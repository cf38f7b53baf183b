import { addDays, type AdvancedInsights, dayOf, type RatingView } from '@joy/domain';
import { QueryClientProvider } from '@tanstack/react-query';
import { render, screen, within } from '@testing-library/react';
import type { ReactNode } from 'react';
import { MemoryRouter } from 'react-router-dom';
import { createQueryClient } from '../api';
import InsightsPage from '../pages/Insights';
import { installFakeServer, summaryRoute, type FakeRoutes } from '../testing/fakeServer';
import { ratingsFrom } from '../testing/ratings';

jest.mock('../charts/EChart', () => ({
  EChart: ({ description }: { description: ReactNode }) => <div data-testid="chart">{description}</div>,
}));

jest.setTimeout(30000);

const DAY = 86_400_000;
const free = { status: 200, body: { isPremium: false, status: 'free' } };
const premium = { status: 200, body: { isPremium: true, status: 'active' } };
// Newest first: 4s over the last 10 days, then 1s from 40 days back (outside the free window).
const recentAndOld = () => [
  ...ratingsFrom(Array(10).fill(4), new Date(Date.now() - 3_600_000).toISOString(), DAY),
  ...ratingsFrom(Array(5).fill(1), new Date(Date.now() - 40 * DAY).toISOString(), DAY).map((r) => ({ ...r, id: `old-${r.id}` })),
];

const advanced: AdvancedInsights = {
  weeklyFactors: [{ week: '2026-W47', weekStart: '2026-11-16', count: 3, relationships: 4, health: 3, purpose: 3, growth: 3.67, joy: 3.33, overall: 3.4 }],
  weekdayPattern: [
    { weekday: 'Mon', count: 2, mean: 3.5 },
    { weekday: 'Tue', count: 0, mean: null },
    { weekday: 'Wed', count: 1, mean: 2 },
    { weekday: 'Thu', count: 0, mean: null },
    { weekday: 'Fri', count: 0, mean: null },
    { weekday: 'Sat', count: 0, mean: null },
    { weekday: 'Sun', count: 1, mean: 5 },
  ],
  forecast: [{ date: '2026-11-23', expected: 3.46, low: 2.71, high: 4.2 }],
  since: '2026-01-05T12:00:00.000Z',
  // A missed day rated later: the history begins before the first rating was made.
  firstDay: '2026-01-03',
};

/** The list's first page and the summary of `ratings`, as the server answers them. */
const ratingRoutes = (ratings: RatingView[]): FakeRoutes => ({ 'GET /api/joy-ratings': { status: 200, body: ratings }, ...summaryRoute(() => ratings) });

function renderWith(routes: FakeRoutes) {
  const fetchMock = installFakeServer(routes);
  render(
    <QueryClientProvider client={createQueryClient()}>
      <MemoryRouter>
        <InsightsPage />
      </MemoryRouter>
    </QueryClientProvider>,
  );
  return fetchMock;
}

const requested = (fetchMock: jest.Mock, path: string) => fetchMock.mock.calls.some(([url]) => String(url) === path);

describe('Joy Insights by plan', () => {
  it('shows a free user the last 30 days only, says so, and offers what Joy Premium adds', async () => {
    const fetchMock = renderWith({ ...ratingRoutes(recentAndOld()), 'GET /api/subscription-status': free });
    expect(await screen.findByText('Showing your last 30 days')).toBeInTheDocument();
    // Only the ten 4s: the 1s from 40 days ago would pull the averages down.
    expect(within(screen.getByTestId('card-days')).getByText('10 ratings in the last 30 days')).toBeInTheDocument();
    expect(within(screen.getByTestId('card-strongest')).getByText('Every area at 4.0/5')).toBeInTheDocument();
    // The 7-day figure is set against the average of what is shown, and says so (not "overall": the Dashboard's is all-time).
    expect(within(screen.getByTestId('card-seven-day')).getByText('Your latest 7 ratings, +0.0 vs your 30-day average of 4.0')).toBeInTheDocument();

    const adds = within(screen.getByTestId('premium-adds'));
    expect(adds.getByRole('heading', { name: 'Joy Premium adds' })).toBeInTheDocument();
    expect(adds.getAllByRole('listitem').map((li) => li.textContent)).toEqual([
      'Your full history instead of the last 30 days',
      'Per-factor trends week by week',
      'Your weekday pattern',
      'A forecast of the coming week with its uncertainty',
    ]);
    expect(adds.getByRole('link', { name: 'Upgrade' })).toHaveAttribute('href', '/subscribe');
    expect(screen.queryByRole('heading', { name: 'Advanced Analytics' })).not.toBeInTheDocument();
    expect(requested(fetchMock, '/api/insights/advanced')).toBe(false);
  });

  it('counts the last 30 days as today and the 29 before: a rating of the day 30 days back is left out', async () => {
    const today = dayOf(new Date(), Intl.DateTimeFormat().resolvedOptions().timeZone)!;
    const onDay = (daysBack: number, score: number): RatingView => ({ ...ratingsFrom([score], new Date().toISOString())[0], id: `back-${daysBack}`, day: addDays(today, -daysBack) });
    renderWith({ ...ratingRoutes([onDay(29, 5), onDay(30, 1)]), 'GET /api/subscription-status': free });
    expect(await screen.findByText('Showing your last 30 days')).toBeInTheDocument();
    // Only the 5s of 29 days back: the 1s of 30 days back made it "2 ratings", every area at 3.0.
    expect(within(screen.getByTestId('card-days')).getByText('1 rating in the last 30 days')).toBeInTheDocument();
    expect(within(screen.getByTestId('card-strongest')).getByText('Every area at 5.0/5')).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: /Your Ratings \(Last 30 Days\)/ })).toBeInTheDocument();
  });

  it('tells a free user with only older ratings that nothing is in the last 30 days, with the Premium card', async () => {
    const old = ratingsFrom([3, 3], new Date(Date.now() - 40 * DAY).toISOString(), DAY);
    renderWith({ ...ratingRoutes(old), 'GET /api/subscription-status': free });
    expect(await screen.findByRole('heading', { name: 'No Ratings in the Last 30 Days' })).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Joy Premium adds' })).toBeInTheDocument();
  });

  it('shows a premium user the full history and the Advanced Analytics with their text alternatives', async () => {
    renderWith({
      ...ratingRoutes(recentAndOld()),
      'GET /api/subscription-status': premium,
      'GET /api/insights/advanced': { status: 200, body: advanced },
    });
    expect(await screen.findByRole('heading', { name: 'Advanced Analytics' })).toBeInTheDocument();
    expect(within(screen.getByTestId('card-days')).getByText('15 ratings in total')).toBeInTheDocument();
    expect(screen.queryByText('Showing your last 30 days')).not.toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'Joy Premium adds' })).not.toBeInTheDocument();

    const weekly = await screen.findByRole('table', { name: 'Weekly average of each PERMA factor' });
    expect(within(weekly).getAllByRole('row').map((r) => r.textContent)).toEqual([
      'WeekRelationshipsHealthPurposeGrowthJoy',
      'Week of Nov 164.0/53.0/53.0/53.7/53.3/5',
    ]);
    const weekdays = screen.getByRole('table', { name: 'Average overall score by weekday' });
    expect(within(weekdays).getAllByRole('row').slice(1, 3).map((r) => r.textContent)).toEqual(['Mon3.5/52', 'TueNo ratings0']);
    const forecast = screen.getByRole('table', { name: 'Forecast of your overall score for the next 7 days' });
    expect(within(forecast).getAllByRole('row').slice(1).map((r) => r.textContent)).toEqual(['Mon, Nov 233.5/52.7 – 4.2']);
    expect(screen.getByRole('heading', { name: 'Next 7 Days' })).toBeInTheDocument();
    expect(screen.getByText('Your full history since Jan 3, 2026')).toBeInTheDocument();
  });

  it('explains a missing forecast to a premium user with fewer than 7 days of ratings', async () => {
    renderWith({
      ...ratingRoutes(ratingsFrom([4, 4])),
      'GET /api/subscription-status': premium,
      'GET /api/insights/advanced': { status: 200, body: { ...advanced, forecast: null } },
    });
    expect(await screen.findByTestId('forecast-unavailable')).toHaveTextContent('The forecast appears when you have rated on at least 7 different days in the last 8 weeks, one of them in the last 3 days.');
  });
});
