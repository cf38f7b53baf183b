import { screen, within } from '@testing-library/react';
import type { ReactNode } from 'react';
import DashboardPage from '../pages/Dashboard';
import { installFakeServer, summaryRoute } from '../testing/fakeServer';
import { renderPage } from '../testing/renderApp';
import { ratingsFrom } from '../testing/ratings';
import type { RatingView } from '@joy/domain';

// Canvas charts do not run in jsdom: render only the chart's text alternative.
jest.mock('../charts/EChart', () => ({
  EChart: ({ description }: { description: ReactNode }) => <div data-testid="chart">{description}</div>,
}));

jest.setTimeout(30000);

function renderWith(ratings: RatingView[] | { status: number }) {
  const body = Array.isArray(ratings) ? { status: 200, body: ratings } : ratings;
  installFakeServer({ 'GET /api/joy-ratings': body, ...summaryRoute(() => (Array.isArray(ratings) ? ratings : [])) });
  renderPage(<DashboardPage />);
}

const card = (testId: string) => within(screen.getByTestId(testId));

describe('Joy Dashboard', () => {
  it('with no ratings: N/A cards and "Start Your Joy Journey" with the rating form', async () => {
    renderWith([]);
    expect(await screen.findByRole('heading', { name: 'Start Your Joy Journey' })).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Your Joy Dashboard', level: 1 })).toBeInTheDocument();
    expect(card('card-overall').getByText('N/A')).toBeInTheDocument();
    expect(card('card-trend').getByText('N/A')).toBeInTheDocument();
    expect(card('card-days').getByText('0')).toBeInTheDocument();
    expect(card('card-average').getByText('N/A')).toBeInTheDocument();
    expect(screen.getByRole('form', { name: 'Rate your joy' })).toBeInTheDocument();
    expect(screen.queryByText('Joy Trend (Last 14 Days)')).not.toBeInTheDocument();
  });

  it('with one rating: the gauge, Trend N/A, and no charts yet', async () => {
    renderWith(ratingsFrom([4]));
    expect(await screen.findByRole('heading', { name: 'Current Joy Level' })).toBeInTheDocument();
    expect(screen.getByRole('group', { name: 'Overall joy score 4.0 out of 5: Great Joy!' })).toBeInTheDocument();
    expect(card('card-trend').getByText('N/A')).toBeInTheDocument();
    expect(screen.getByText('Your charts are on their way')).toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'PERMA Factors Breakdown' })).not.toBeInTheDocument();
  });

  it('with ratings: the four cards, the rating panel beside the gauge, both charts and the x/5 tiles', async () => {
    const ratings = ratingsFrom(
      [{ relationships: 5, health: 4, purpose: 4, growth: 3, joy: 5 }, 3, 2],
      '2025-08-19T12:00:00Z',
      86_400_000,
    );
    renderWith(ratings);
    expect(await screen.findByRole('heading', { name: 'Joy Trend (Last 14 Days)' })).toBeInTheDocument();
    expect(card('card-overall').getByText('4.2')).toBeInTheDocument();
    const trend = card('card-trend').getByText('+1.2');
    expect(trend.closest('.stat-card__value')).toHaveStyle({ color: '#15803d' });
    expect(card('card-days').getByText('3')).toBeInTheDocument();
    expect(card('card-average').getByText('3.1')).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Rate Your Joy' })).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'PERMA Factors Breakdown' })).toBeInTheDocument();
    // The charts' text alternatives: oldest to newest.
    const trendTable = screen.getByRole('table', { name: /Overall joy score of your latest ratings/ });
    expect(within(trendTable).getAllByRole('row').slice(1).map((r) => r.lastChild?.textContent)).toEqual(['2.0/5', '3.0/5', '4.2/5']);
    const factorTable = screen.getByRole('table', { name: /PERMA factor scores/ });
    expect(within(factorTable).getAllByRole('columnheader').map((c) => c.textContent)).toEqual([
      'Rated',
      'Relationships',
      'Health',
      'Purpose',
      'Growth',
      'Joy',
    ]);
    const tiles = within(screen.getByRole('heading', { name: 'Current PERMA Scores' }).closest('.ant-card') as HTMLElement);
    expect(tiles.getAllByRole('listitem').map((li) => li.textContent)).toEqual([
      'Relationships5/5',
      'Health4/5',
      'Purpose4/5',
      'Growth3/5',
      'Joy5/5',
    ]);
  });

  it("shows today's rating as the latest when 50 missed days rated after it fill the first page (a review, 11-27)", async () => {
    const today: RatingView = { ...ratingsFrom([5], '2026-11-27T08:00:00Z')[0], id: 'today', day: '2026-11-27' };
    const missed = ratingsFrom(Array(50).fill(1), '2026-11-27T10:00:00Z', 60_000).map((r, i) => ({ ...r, day: new Date(Date.UTC(2026, 10, 26 - i)).toISOString().slice(0, 10) }));
    installFakeServer({
      'GET /api/joy-ratings': { status: 200, body: missed },
      'GET /api/joy-ratings/latest': { status: 200, body: today },
      ...summaryRoute(() => [today, ...missed]),
    });
    renderPage(<DashboardPage />);
    expect(await screen.findByRole('group', { name: /^Overall joy score 5\.0 out of 5/ })).toBeInTheDocument();
    expect(card('card-overall').getByText('5.0')).toBeInTheDocument();
    expect(card('card-trend').getByText('+4.0')).toBeInTheDocument(); // against the day before, rated 1
    // The list below still shows what was made last, first.
    expect(screen.getAllByTestId('rating-history-item')[0]).toHaveTextContent('For Nov 26, 2026Saved Nov 27, 2026, 10:00 AM');
  });

  // A review (11-27): the trend and the charts came from the list's first page (the newest made), so 50 missed days
  // filled in today hid yesterday's rating: the trend compared today with a day in the summer.
  it('takes the trend and the charts from the latest ratings by day, not from what was made last', async () => {
    const daily = [4, 3, ...Array(25).fill(3.4)].map((score, i) => ({ ...ratingsFrom([score], `2026-11-${String(27 - i).padStart(2, '0')}T08:00:00Z`)[0], id: `d${i}` }));
    const missed = ratingsFrom(Array(50).fill(1), '2026-11-27T10:50:00Z', 60_000).map((r, i) => ({ ...r, id: `m${i}`, day: new Date(Date.UTC(2026, 7, 19 - i)).toISOString().slice(0, 10) }));
    installFakeServer({ 'GET /api/joy-ratings': { status: 200, body: missed }, ...summaryRoute(() => [...daily, ...missed]) });
    renderPage(<DashboardPage />);
    expect(await screen.findByRole('group', { name: /^Overall joy score 4\.0 out of 5/ })).toBeInTheDocument();
    expect(card('card-trend').getByText('+1.0')).toBeInTheDocument(); // today 4.0 against yesterday 3.0
    const trendTable = screen.getByRole('table', { name: /Overall joy score of your latest ratings/ });
    const points = within(trendTable).getAllByRole('row').slice(1).map((r) => r.lastChild?.textContent);
    expect(points).toEqual([...Array(12).fill('3.4/5'), '3.0/5', '4.0/5']);
  });

  it('shows a negative trend in red with a minus sign', async () => {
    renderWith(ratingsFrom([2, 3]));
    const trend = await screen.findByText('-1.0');
    expect(trend.closest('.stat-card__value')).toHaveStyle({ color: '#b91c1c' });
  });

  it('offers a retry when the ratings cannot be loaded', async () => {
    renderWith({ status: 500 });
    expect(await screen.findByText("We couldn't load your ratings.")).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Try again' })).toBeInTheDocument();
  });
});
