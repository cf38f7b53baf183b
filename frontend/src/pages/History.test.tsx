import { screen, within } from '@testing-library/react';
import type { ReactNode } from 'react';
import { bindNotifier } from '../lib/toast';
import HistoryPage from './History';
import { installFakeServer, summaryRoute } from '../testing/fakeServer';
import { renderPage } from '../testing/renderApp';
import { ratingsFrom } from '../testing/ratings';
import type { RatingCalendarView } from '@joy/domain';

// Canvas charts do not run in jsdom: render only the chart's text alternative (the table of the days).
jest.mock('../charts/EChart', () => ({
  EChart: ({ description }: { description: ReactNode }) => <div data-testid="chart">{description}</div>,
}));

jest.setTimeout(30000);

const notifier = { error: jest.fn(), success: jest.fn(), info: jest.fn(), warning: jest.fn(), open: jest.fn(), destroy: jest.fn() };
beforeEach(() => bindNotifier(notifier));

describe('the History page', () => {
  it('shows the streaks, the rated days of the year and every rating with its note', async () => {
    const year = new Date().getFullYear();
    const [withNote, other] = ratingsFrom([4, 2], `${year}-03-05T12:00:00Z`);
    const ratings = [{ ...withNote, day: `${year}-03-04`, note: 'Walked the cliffs; the sea was silver' }, other];
    const calendar: RatingCalendarView = {
      year,
      days: [
        { day: `${year}-03-04`, overallScore: 4, count: 1 },
        { day: `${year}-03-05`, overallScore: 2, count: 1 },
      ],
      currentStreak: 2,
      longestStreak: 7,
    };
    const asked: string[] = [];
    installFakeServer({
      'GET /api/joy-ratings': async () => ({ status: 200, body: ratings }),
      ...summaryRoute(() => ratings),
      [`GET /api/joy-ratings/calendar?year=${year}`]: async () => {
        asked.push(String(year));
        return { status: 200, body: calendar };
      },
    });
    renderPage(<HistoryPage />);

    expect(await within(screen.getByTestId('card-current-streak')).findByText('2 days')).toBeInTheDocument();
    expect(within(screen.getByTestId('card-longest-streak')).getByText('7 days')).toBeInTheDocument();
    const table = within(await screen.findByRole('table', { name: `Days rated in ${year}` }));
    expect(table.getAllByRole('row')).toHaveLength(3); // the header and two days
    expect(table.getByRole('cell', { name: '4.0' })).toBeInTheDocument();

    const items = await screen.findAllByTestId('rating-history-item');
    expect(items).toHaveLength(2);
    expect(within(items[0]).getByTestId('rating-note')).toHaveTextContent('Walked the cliffs; the sea was silver');
    expect(within(items[0]).getByText(/^For /)).toBeInTheDocument(); // rated later, for the 4th
    expect(within(items[1]).queryByTestId('rating-note')).toBeNull();
    expect(within(items[0]).getByRole('button', { name: /Edit rating/ })).toBeInTheDocument();
    expect(asked).toEqual([String(year)]);
  });

  it('says when nothing is rated yet this year, with the way to rate, and when the ratings cannot be loaded', async () => {
    const year = new Date().getFullYear();
    installFakeServer({
      'GET /api/joy-ratings': async () => ({ status: 500, body: { statusCode: 500, code: 'internal', message: 'Internal server error' } }),
      [`GET /api/joy-ratings/calendar?year=${year}`]: async () => ({ status: 200, body: { year, days: [], currentStreak: 0, longestStreak: 0 } }),
    });
    renderPage(<HistoryPage />);
    expect(await screen.findByText(`No ratings in ${year} yet.`, { exact: false })).toBeInTheDocument();
    expect(screen.getByText('Rate today on Home').closest('a')).toHaveAttribute('href', '/');
    expect(await screen.findByText('Your ratings could not be loaded. Please reload the page.')).toBeInTheDocument();
    expect(screen.queryAllByTestId('rating-history-item')).toHaveLength(0);
  });
});
