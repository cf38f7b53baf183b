import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import type { ReactNode } from 'react';
import { fullLabel } from '../dashboard/summary';
import { formatCalendarDay } from '../lib/dates';
import { bindNotifier } from '../lib/toast';
import DashboardPage from '../pages/Dashboard';
import { installFakeServer, summaryRoute } from '../testing/fakeServer';
import { renderPage } from '../testing/renderApp';
import { ratingsFrom } from '../testing/ratings';
import { overallScore, type FactorScores, type RatingView } from '@joy/domain';

// Canvas charts do not run in jsdom: render only the chart's text alternative.
jest.mock('../charts/EChart', () => ({
  EChart: ({ description }: { description: ReactNode }) => <div data-testid="chart">{description}</div>,
}));

jest.setTimeout(30000);

const notifier = { error: jest.fn(), success: jest.fn(), info: jest.fn(), warning: jest.fn(), open: jest.fn(), destroy: jest.fn() };

/** The Dashboard against a fake API that keeps the ratings and answers PUT and DELETE as the server does. */
function renderDashboard(initial: RatingView[]) {
  let ratings = [...initial];
  const calls: { method: string; id: string; body?: FactorScores }[] = [];
  const routes: Parameters<typeof installFakeServer>[0] = { 'GET /api/joy-ratings': async () => ({ status: 200, body: ratings }), ...summaryRoute(() => ratings) };
  for (const r of initial) {
    routes[`PUT /api/joy-ratings/${r.id}`] = async () => {
      const body = JSON.parse(String(fetchMock.mock.calls.at(-1)![1]!.body)) as FactorScores;
      calls.push({ method: 'PUT', id: r.id, body });
      const updated = { ...r, ...body, overallScore: overallScore(body) };
      ratings = ratings.map((x) => (x.id === r.id ? updated : x));
      return { status: 200, body: updated };
    };
    routes[`DELETE /api/joy-ratings/${r.id}`] = async () => {
      calls.push({ method: 'DELETE', id: r.id });
      ratings = ratings.filter((x) => x.id !== r.id);
      return { status: 204 };
    };
  }
  const fetchMock = installFakeServer(routes);
  renderPage(<DashboardPage />);
  return { calls };
}

/** The Overall Joy card shows this score (waiting for the page, then for the refetch). */
const overallShows = async (text: string) => expect(await within(await screen.findByTestId('card-overall')).findByText(text)).toBeInTheDocument();
const historyItems = () => screen.getAllByTestId('rating-history-item');

beforeEach(() => {
  jest.clearAllMocks();
  bindNotifier(notifier);
});

describe('rating history on the Dashboard: edit and delete', () => {
  const ratings = ratingsFrom([2, { relationships: 4, health: 4, purpose: 4, growth: 4, joy: 5 }], '2025-08-19T12:00:00Z', 86_400_000);
  const newest = fullLabel(ratings[0].createdAt);
  const older = fullLabel(ratings[1].createdAt);

  it('lists every rating, newest first, with its date, overall score and named Edit and Delete buttons', async () => {
    renderDashboard(ratings);
    expect(await screen.findByRole('heading', { name: 'Your Ratings' })).toBeInTheDocument();
    const items = historyItems();
    expect(items).toHaveLength(2);
    expect(items[0]).toHaveTextContent(newest);
    expect(within(items[0]).getByLabelText('Overall 2.0 out of 5')).toBeInTheDocument();
    expect(items[1]).toHaveTextContent('Relationships 4 · Health 4 · Purpose 4 · Growth 4 · Joy 5');
    expect(screen.getByRole('button', { name: `Edit rating of ${newest}` })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: `Delete rating of ${older}` })).toBeInTheDocument();
  });

  it('takes the latest and the trend by the day rated: a low missed day rated just now is neither', async () => {
    const [today, yesterday] = ratingsFrom([4, 3], '2025-08-19T12:00:00Z', 86_400_000);
    const missed = { ...ratingsFrom([1], '2025-08-19T13:00:00Z')[0], id: 'missed', day: '2025-08-10' };
    renderDashboard([missed, today, yesterday]);
    await overallShows('4.0');
    expect(within(screen.getByTestId('card-trend')).getByText(/\+1\.0/)).toBeInTheDocument();
    // The list keeps the order they were made in, the missed day led by its day, then when it was saved.
    expect(historyItems()[0].querySelector('.rating-history__date')).toHaveTextContent(`For ${formatCalendarDay('2025-08-10')}`);
    expect(historyItems()[0].querySelector('.rating-history__for')).toHaveTextContent(/^Saved Aug 19, 2025/);
    expect(historyItems()[1].querySelector('.rating-history__date')).toHaveTextContent(/^Aug 19, 2025/);
  });

  it('names a missed day rated later by the day it is for, on its buttons and in its edit dialog', async () => {
    const late = { ...ratings[0], id: 'late', day: '2025-08-15' };
    renderDashboard([late, ratings[1]]);
    const label = `${formatCalendarDay('2025-08-15')} (saved ${newest})`;
    expect(await screen.findByRole('button', { name: `Delete rating of ${label}` })).toBeInTheDocument();
    fireEvent.click(screen.getByRole('button', { name: `Edit rating of ${label}` }));
    // The dialog's title, short enough for a phone: the day only.
    expect(await screen.findByRole('dialog', { name: `Edit rating of ${formatCalendarDay('2025-08-15')}` })).toBeInTheDocument();
  });

  it('Edit opens the rating form prefilled; Save Changes sends PUT and the Dashboard shows the new score', async () => {
    const { calls } = renderDashboard(ratings);
    await overallShows('2.0');
    fireEvent.click(screen.getByRole('button', { name: `Edit rating of ${newest}` }));
    const dialog = await screen.findByRole('dialog', { name: `Edit rating of ${newest}` });
    const form = within(dialog).getByRole('form', { name: 'Edit your rating' });
    for (const label of ['Relationships', 'Health', 'Purpose', 'Growth', 'Joy']) {
      expect(within(form).getByRole('radio', { name: `${label}: 2 stars, Low` })).toBeChecked();
    }
    fireEvent.click(within(form).getByRole('radio', { name: 'Joy: 5 stars, Very High' }));
    fireEvent.click(within(form).getByRole('radio', { name: 'Health: 5 stars, Very High' }));
    fireEvent.click(within(form).getByRole('button', { name: 'Save Changes' }));

    await waitFor(() => expect(calls).toEqual([{ method: 'PUT', id: 'r0', body: { relationships: 2, health: 5, purpose: 2, growth: 2, joy: 5 } }]));
    // The summary card, the gauge and the list all follow.
    await overallShows('3.2');
    expect(within(historyItems()[0]).getByLabelText('Overall 3.2 out of 5')).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(notifier.success).toHaveBeenCalledWith(expect.objectContaining({ title: 'Rating Updated' }));
  });

  it('says a rating deleted elsewhere meanwhile is gone (not "try again"), closes the edit and reads the list again', async () => {
    let deletedElsewhere = false;
    const list = () => (deletedElsewhere ? ratings.slice(1) : ratings);
    installFakeServer({
      'GET /api/joy-ratings': async () => ({ status: 200, body: list() }),
      ...summaryRoute(list),
      [`PUT /api/joy-ratings/${ratings[0].id}`]: { status: 404, body: { statusCode: 404, code: 'rating.not_found', message: 'Rating not found' } },
    });
    renderPage(<DashboardPage />);
    await overallShows('2.0');
    fireEvent.click(screen.getByRole('button', { name: `Edit rating of ${newest}` }));
    const dialog = await screen.findByRole('dialog', { name: `Edit rating of ${newest}` });
    deletedElsewhere = true; // in another tab
    fireEvent.click(within(dialog).getByRole('radio', { name: 'Joy: 5 stars, Very High' }));
    fireEvent.click(within(dialog).getByRole('button', { name: 'Save Changes' }));
    await waitFor(() => expect(notifier.error).toHaveBeenCalledWith(expect.objectContaining({ title: 'This rating is gone' })));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    await waitFor(() => expect(historyItems()).toHaveLength(1));
    expect(notifier.error).not.toHaveBeenCalledWith(expect.objectContaining({ description: expect.stringContaining('try again') }));
  });

  it('Delete asks first; Keep it changes nothing; Delete sends DELETE and the older rating becomes the latest', async () => {
    const { calls } = renderDashboard(ratings);
    await overallShows('2.0');
    fireEvent.click(screen.getByRole('button', { name: `Delete rating of ${newest}` }));
    expect(await screen.findByText('Delete this rating?')).toBeInTheDocument();
    fireEvent.click(screen.getByRole('button', { name: 'Keep it' }));
    expect(calls).toEqual([]);

    fireEvent.click(screen.getByRole('button', { name: `Delete rating of ${newest}` }));
    const confirm = await screen.findAllByRole('button', { name: 'Delete' });
    fireEvent.click(confirm[confirm.length - 1]);
    await waitFor(() => expect(calls).toEqual([{ method: 'DELETE', id: 'r0' }]));
    await overallShows('4.2');
    await waitFor(() => expect(historyItems()).toHaveLength(1));
    expect(screen.queryByRole('button', { name: `Edit rating of ${newest}` })).not.toBeInTheDocument();
    expect(notifier.success).toHaveBeenCalledWith(expect.objectContaining({ title: 'Rating Deleted' }));
  });

  it('shows ten ratings, then more on request', async () => {
    renderDashboard(ratingsFrom(Array.from({ length: 13 }, () => 3)));
    expect(await screen.findByRole('heading', { name: 'Your Ratings' })).toBeInTheDocument();
    expect(historyItems()).toHaveLength(10);
    fireEvent.click(screen.getByRole('button', { name: 'Show more (3 older)' }));
    expect(historyItems()).toHaveLength(13);
  });

  it('loads the next page of the list when Show more goes past the first page, counting the older ones from the summary', async () => {
    // 57 ratings: the server answers the newest 50 and names the next page in X-Next-Before.
    const all = ratingsFrom(Array.from({ length: 57 }, (_, i) => 1 + (i % 5)));
    const fetchMock = installFakeServer({
      'GET /api/joy-ratings': { status: 200, body: all.slice(0, 50), headers: { 'X-Next-Before': 'cursor-50' } },
      'GET /api/joy-ratings?limit=50&before=cursor-50': { status: 200, body: all.slice(50) },
      ...summaryRoute(() => all),
    });
    renderPage(<DashboardPage />);
    expect(await screen.findByRole('heading', { name: 'Your Ratings' })).toBeInTheDocument();
    for (let shown = 10; shown < 50; shown += 10) fireEvent.click(screen.getByRole('button', { name: `Show more (${57 - shown} older)` }));
    expect(historyItems()).toHaveLength(50);
    const nextPage = () => fetchMock.mock.calls.filter(([url]) => String(url) === '/api/joy-ratings?limit=50&before=cursor-50');
    expect(nextPage()).toHaveLength(0);
    fireEvent.click(screen.getByRole('button', { name: 'Show more (7 older)' }));
    await waitFor(() => expect(historyItems()).toHaveLength(57));
    expect(nextPage()).toHaveLength(1);
    expect(historyItems()[56]).toHaveTextContent(fullLabel(all[56].createdAt));
    expect(screen.queryByRole('button', { name: /Show more/ })).not.toBeInTheDocument();
  }, 90_000);
});
