import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import type { ReactNode } from 'react';
import { bindNotifier } from '../lib/toast';
import HistoryPage from './History';
import { installFakeServer, summaryRoute } from '../testing/fakeServer';
import { renderPage } from '../testing/renderApp';
import { ratingsFrom } from '../testing/ratings';
import type { RatingCalendarView } from '@joy/domain';

// Canvas charts do not run in jsdom: render only the chart's text alternative (the table of the days), and a
// button that stands for a click on the cell of `mockCell` (the value ECharts hands over: [day, score, count]).
let mockCell: [string, number, number] = ['', 0, 0];
jest.mock('../charts/EChart', () => ({
  EChart: ({ description, onItemClick }: { description: ReactNode; onItemClick?: (value: unknown) => void }) => (
    <div data-testid="chart">
      {description}
      <button type="button" onClick={() => onItemClick?.(mockCell)}>
        the cell
      </button>
    </div>
  ),
}));

jest.setTimeout(30000);

const notifier = { error: jest.fn(), success: jest.fn(), info: jest.fn(), warning: jest.fn(), open: jest.fn(), destroy: jest.fn() };
beforeEach(() => bindNotifier(notifier));

describe('the History page', () => {
  it('says the current streak runs up to today once today is rated', async () => {
    const year = new Date().getFullYear();
    const ratings = ratingsFrom([4], new Date().toISOString());
    installFakeServer({
      'GET /api/joy-ratings': async () => ({ status: 200, body: ratings }),
      ...summaryRoute(() => ratings),
      [`GET /api/joy-ratings/calendar?year=${year}`]: { status: 200, body: { year, days: [], currentStreak: 1, longestStreak: 1 } },
    });
    renderPage(<HistoryPage />);
    expect(await within(screen.getByTestId('card-current-streak')).findByText('1 day')).toBeInTheDocument();
    expect(await within(screen.getByTestId('card-current-streak')).findByText('Days in a row, up to today')).toBeInTheDocument();
  });

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
    // Its days end before today, which is not rated: the streak runs up to yesterday, and today keeps it going.
    expect(await within(screen.getByTestId('card-current-streak')).findByText('Days in a row, up to yesterday: rate today to keep it going')).toBeInTheDocument();
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

  it("opens a day's ratings with their notes from its cell and from See a day, and a delete there shows at once", async () => {
    const year = new Date().getFullYear();
    const day = `${year}-03-04`;
    const [evening, morning] = ratingsFrom([4, 2], `${year}-03-04T20:00:00Z`);
    let ofDay = [{ ...evening, id: 'e', note: 'Dinner with Ines' }, { ...morning, id: 'm' }];
    const deleted: string[] = [];
    installFakeServer({
      'GET /api/joy-ratings': async () => ({ status: 200, body: ofDay }),
      ...summaryRoute(() => ofDay),
      [`GET /api/joy-ratings/calendar?year=${year}`]: { status: 200, body: { year, days: [{ day, overallScore: 3, count: 2 }], currentStreak: 0, longestStreak: 1 } },
      [`GET /api/joy-ratings/days/${day}`]: async () => ({ status: 200, body: ofDay }),
      [`GET /api/joy-ratings/days/${year}-03-05`]: { status: 200, body: [] },
      'DELETE /api/joy-ratings/*': async (url) => {
        const id = url.split('/').pop()!;
        deleted.push(id);
        ofDay = ofDay.filter((r) => r.id !== id);
        return { status: 204 };
      },
    });
    renderPage(<HistoryPage />);
    await screen.findByRole('table', { name: `Days rated in ${year}` });

    // A click on the day's cell: its ratings, newest first, with the note.
    mockCell = [day, 3, 2];
    fireEvent.click(screen.getByRole('button', { name: 'the cell' }));
    const dialog = within(await screen.findByRole('dialog', { name: `Mar 4, ${year}` }));
    expect(await dialog.findByRole('heading', { name: '2 ratings for this day' })).toBeInTheDocument();
    const items = dialog.getAllByTestId('rating-history-item');
    expect(within(items[0]).getByTestId('rating-note')).toHaveTextContent('Dinner with Ines');
    expect(within(items[1]).getByLabelText('Overall 2.0 out of 5')).toBeInTheDocument();

    // Deleting one there: asked first, then gone from the day at once.
    fireEvent.click(within(items[1]).getByRole('button', { name: /^Delete rating of/ }));
    const confirm = await screen.findAllByRole('button', { name: 'Delete' });
    fireEvent.click(confirm[confirm.length - 1]);
    await waitFor(() => expect(dialog.getAllByTestId('rating-history-item')).toHaveLength(1));
    expect(deleted).toEqual(['m']);
    expect(dialog.getByRole('heading', { name: '1 rating for this day' })).toBeInTheDocument();
    fireEvent.click(dialog.getByRole('button', { name: 'Close' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());

    // Without a pointer: See a day, then Show (only once the field holds a whole date).
    const field = screen.getByLabelText('See a day');
    const show = screen.getByRole('button', { name: 'Show' });
    expect(show).toBeDisabled();
    fireEvent.change(field, { target: { value: `${year}-03-05` } });
    fireEvent.click(show);
    const empty = within(await screen.findByRole('dialog', { name: `Mar 5, ${year}` }));
    expect(await empty.findByText(`No ratings for Mar 5, ${year}.`)).toBeInTheDocument();
    fireEvent.click(empty.getByRole('button', { name: 'Close' }));

    // A day of an earlier year: the calendar behind the dialog moves to that year.
    fireEvent.change(field, { target: { value: `${year - 1}-12-31` } });
    fireEvent.click(show);
    await screen.findByRole('dialog', { name: `Dec 31, ${year - 1}` });
    expect(screen.getByRole('heading', { name: String(year - 1), hidden: true })).toBeInTheDocument();
  });

  it('rates an empty day from its dialog ("Rate this day"), and offers it only for a day that can still be rated', async () => {
    const { dayOf } = await import('@joy/domain');
    const today = dayOf(new Date(), 'UTC')!;
    const yesterday = dayOf(Date.now() - 86_400_000, 'UTC')!;
    let stored: ReturnType<typeof ratingsFrom> = [];
    const fetchMock = installFakeServer({
      'GET /api/settings': { status: 200, body: { firstName: 'Ada', timeZone: 'UTC', reminderTime: null, acceptCareActions: true } },
      'GET /api/joy-ratings': async () => ({ status: 200, body: stored }),
      ...summaryRoute(() => stored),
      [`GET /api/joy-ratings/calendar?year=${today.slice(0, 4)}`]: { status: 200, body: { year: Number(today.slice(0, 4)), days: [], currentStreak: 0, longestStreak: 0 } },
      // On New Year's Day, yesterday's is last year's.
      [`GET /api/joy-ratings/calendar?year=${yesterday.slice(0, 4)}`]: { status: 200, body: { year: Number(yesterday.slice(0, 4)), days: [], currentStreak: 0, longestStreak: 0 } },
      [`GET /api/joy-ratings/days/${yesterday}`]: async () => ({ status: 200, body: stored }),
      [`GET /api/joy-ratings/days/2000-01-01`]: { status: 200, body: [] },
      'GET /api/joy-ratings/calendar?year=2000': { status: 200, body: { year: 2000, days: [], currentStreak: 0, longestStreak: 0 } },
      'POST /api/joy-ratings': async () => {
        stored = [{ ...ratingsFrom([4], `${today}T09:00:00Z`)[0], day: yesterday }];
        return { status: 201, body: stored[0] };
      },
    });
    const posted = () => fetchMock.mock.calls.filter(([url, init]) => url === '/api/joy-ratings' && init?.method === 'POST').map(([, init]) => JSON.parse(String(init!.body)));
    renderPage(<HistoryPage />);
    const field = await screen.findByLabelText('See a day');
    // Too long ago: nothing to offer.
    fireEvent.change(field, { target: { value: '2000-01-01' } });
    fireEvent.click(screen.getByRole('button', { name: 'Show' }));
    const old = within(await screen.findByRole('dialog', { name: 'Jan 1, 2000' }));
    await old.findByText('No ratings for Jan 1, 2000.');
    expect(old.queryByRole('button', { name: 'Rate this day' })).not.toBeInTheDocument();
    fireEvent.click(old.getByRole('button', { name: 'Close' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    // The calendar went to 2000 with it; a recent day brings it back.
    expect(screen.getByRole('heading', { name: '2000', hidden: true })).toBeInTheDocument();
    fireEvent.change(field, { target: { value: yesterday } });
    fireEvent.click(screen.getByRole('button', { name: 'Show' }));
    fireEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Close' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());

    // A click on a blank cell of the calendar (a day not rated, handed over as [day, null, 0]) opens it too.
    mockCell = [yesterday, null as unknown as number, 0];
    fireEvent.click(await screen.findByRole('button', { name: 'the cell' }));
    const dialog = within(await screen.findByRole('dialog'));
    fireEvent.click(await dialog.findByRole('button', { name: 'Rate this day' }));
    // The focus goes with the form (a keyboard user is not left at the top of the page).
    await waitFor(() => expect(dialog.getByRole('heading', { name: /^Rate / })).toHaveFocus());
    fireEvent.click(dialog.getByRole('button', { name: 'Save Rating' }));
    await waitFor(() => expect(posted()).toHaveLength(1));
    expect(posted()[0]).toMatchObject({ day: yesterday });
    expect(await dialog.findByRole('heading', { name: '1 rating for this day' })).toBeInTheDocument();
    expect(dialog.queryByRole('button', { name: 'Save Rating' })).not.toBeInTheDocument();
    await waitFor(() => expect(dialog.getByRole('button', { name: 'Rate this day' })).toHaveFocus());
  });
});
