import { onlineManager, QueryClientProvider } from '@tanstack/react-query';
import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { createQueryClient } from '../api';
import { AUTH_USER_KEY } from '../auth';
import { browser, resetUnauthorizedForTests } from '../lib/session';
import { bindNotifier } from '../lib/toast';
import { keepUnsavedRating } from '../lib/unsavedRating';
import { SETTINGS_KEY } from '../settings/api';
import { installFakeServer } from '../testing/fakeServer';
import { createMemoryRouter, Link, RouterProvider } from 'react-router-dom';
import { inDataRouter } from '../testing/renderApp';
import { LeaveGuardProvider } from './LeaveGuard';
import { RatingForm } from './RatingForm';

const notifier = { error: jest.fn(), success: jest.fn(), info: jest.fn(), warning: jest.fn(), open: jest.fn(), destroy: jest.fn() };

function renderForm() {
  const client = createQueryClient();
  const invalidate = jest.spyOn(client, 'invalidateQueries');
  render(
    <QueryClientProvider client={client}>
      {inDataRouter(<RatingForm />)}
    </QueryClientProvider>,
  );
  return { invalidate };
}

beforeEach(() => {
  jest.clearAllMocks();
  bindNotifier(notifier);
});

describe('RatingForm', () => {
  it('has the five factors, each a labelled 1–5 picker starting at 3, and an overall score of 3.0', () => {
    installFakeServer({});
    renderForm();
    for (const label of ['Relationships', 'Health', 'Purpose', 'Growth', 'Joy']) {
      const group = screen.getByRole('group', { name: label });
      expect(group).toBeInTheDocument();
      expect(screen.getByRole('radio', { name: `${label}: 3 stars, Moderate` })).toBeChecked();
      expect(screen.getByRole('radio', { name: `${label}: 1 star, Very Low` })).toBeInTheDocument();
      expect(screen.getByRole('radio', { name: `${label}: 5 stars, Very High` })).toBeInTheDocument();
    }
    expect(screen.getByTestId('overall-score')).toHaveTextContent('3.0');
    expect(screen.getByText('Moderate Joy')).toBeInTheDocument();
  });

  it('asks before a rating written but not saved is left for another page, and not once it is saved', async () => {
    installFakeServer({ 'POST /api/joy-ratings': { status: 201, body: { id: 'r1', overallScore: 3, createdAt: '2026-11-28T10:00:00Z' } } });
    const router = createMemoryRouter([
      {
        path: '/',
        element: (
          <LeaveGuardProvider>
            <Link to="/insights">Insights</Link>
            <RatingForm />
          </LeaveGuardProvider>
        ),
      },
      { path: '/insights', element: <h1>Insights page</h1> },
    ]);
    render(
      <QueryClientProvider client={createQueryClient()}>
        <RouterProvider router={router} />
      </QueryClientProvider>,
    );
    fireEvent.change(screen.getByRole('textbox', { name: /Note/ }), { target: { value: 'A long walk' } });
    fireEvent.click(screen.getByRole('link', { name: 'Insights' }));
    const dialog = await screen.findByRole('dialog', { name: 'Leave without saving?' });
    expect(dialog).toHaveTextContent('Your rating is not saved yet.');
    fireEvent.click(screen.getByRole('button', { name: 'Stay on this page' }));
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Leave without saving?' })).toBeNull());
    expect(screen.getByRole('textbox', { name: /Note/ })).toHaveValue('A long walk');

    fireEvent.click(screen.getByRole('button', { name: 'Save Rating' }));
    await waitFor(() => expect(screen.getByRole('textbox', { name: /Note/ })).toHaveValue(''));
    fireEvent.click(screen.getByRole('link', { name: 'Insights' }));
    await screen.findByText('Insights page');
  });

  it('updates the overall score live', () => {
    installFakeServer({});
    renderForm();
    fireEvent.click(screen.getByRole('radio', { name: 'Joy: 5 stars, Very High' }));
    expect(screen.getByTestId('overall-score')).toHaveTextContent('3.4');
    fireEvent.click(screen.getByRole('radio', { name: 'Health: 5 stars, Very High' }));
    fireEvent.click(screen.getByRole('radio', { name: 'Purpose: 5 stars, Very High' }));
    expect(screen.getByTestId('overall-score')).toHaveTextContent('4.2');
    expect(screen.getByText('Great Joy!')).toBeInTheDocument();
  });

  it('saves the five factors, shows Saving... while pending, then toasts and refreshes the ratings', async () => {
    let respond: (value: { status: number; body?: unknown }) => void = () => undefined;
    const fetchMock = installFakeServer({
      'POST /api/joy-ratings': () => new Promise((resolve) => (respond = resolve)),
    });
    const { invalidate } = renderForm();
    fireEvent.click(screen.getByRole('radio', { name: 'Growth: 4 stars, High' }));
    fireEvent.click(screen.getByRole('button', { name: 'Save Rating' }));

    const saving = await screen.findByRole('button', { name: 'Saving...' });
    expect(saving).toBeDisabled();
    expect(fetchMock).toHaveBeenCalledWith(
      '/api/joy-ratings',
      expect.objectContaining({
        method: 'POST',
        credentials: 'include',
        body: JSON.stringify({ relationships: 3, health: 3, purpose: 3, growth: 4, joy: 3 }),
      }),
    );

    await act(async () =>
      respond({ status: 201, body: { id: 'r1', createdAt: new Date().toISOString(), overallScore: 3.2, relationships: 3, health: 3, purpose: 3, growth: 4, joy: 3 } }),
    );
    await screen.findByRole('button', { name: 'Save Rating' });
    expect(notifier.success).toHaveBeenCalledWith(
      expect.objectContaining({ title: 'Rating Saved!', description: 'Your joy factors have been updated successfully.' }),
    );
    expect(invalidate).toHaveBeenCalledWith({ queryKey: ['/api/joy-ratings'] });
    expect(invalidate).toHaveBeenCalledWith({ queryKey: ['/api/joy-ratings/latest'] });
  });

  it('toasts the destructive error when saving fails', async () => {
    installFakeServer({ 'POST /api/joy-ratings': { status: 500, body: { statusCode: 500, code: 'internal', message: 'Internal server error' } } });
    renderForm();
    fireEvent.click(screen.getByRole('button', { name: 'Save Rating' }));
    await waitFor(() =>
      expect(notifier.error).toHaveBeenCalledWith(
        expect.objectContaining({ title: 'Error', description: 'Failed to save rating. Please try again.' }),
      ),
    );
    expect(notifier.success).not.toHaveBeenCalled();
  });

  it('adds the server\'s reason to the error when the rating is refused for a field', async () => {
    const message = 'note must not contain control or direction-changing characters';
    installFakeServer({ 'POST /api/joy-ratings': { status: 400, body: { statusCode: 400, code: 'request.invalid', message, errors: [{ field: 'note', message }] } } });
    renderForm();
    fireEvent.click(screen.getByRole('button', { name: 'Save Rating' }));
    await waitFor(() =>
      expect(notifier.error).toHaveBeenCalledWith(
        expect.objectContaining({ title: 'Error', description: `Failed to save rating. Please try again. Note must not contain control or direction-changing characters.` }),
      ),
    );
  });

  it("tells which day is full when the day holds the most ratings it can (not 'try again')", async () => {
    const message = '2026-11-20 already has 100 ratings, the most one day can hold. Delete one of them to add another.';
    installFakeServer({ 'POST /api/joy-ratings': { status: 409, body: { statusCode: 409, code: 'rating.day_full', message } } });
    renderForm();
    fireEvent.click(screen.getByRole('button', { name: 'Save Rating' }));
    await waitFor(() => expect(notifier.error).toHaveBeenCalledWith(expect.objectContaining({ title: 'This day is full', description: message })));
    expect(notifier.error).not.toHaveBeenCalledWith(expect.objectContaining({ description: 'Failed to save rating. Please try again.' }));
  });

  it('saves once however fast Save is clicked, with an Idempotency-Key kept for a retry and renewed for new scores', async () => {
    const saved = { id: 'r1', createdAt: new Date().toISOString(), overallScore: 3, relationships: 3, health: 3, purpose: 3, growth: 3, joy: 3 };
    let answers = [{ status: 503, body: { statusCode: 503, code: 'store.unavailable', message: 'Saving is unavailable right now' } }, { status: 201, body: saved }];
    const fetchMock = installFakeServer({ 'POST /api/joy-ratings': () => answers.shift()! });
    renderForm();
    const keys = () => fetchMock.mock.calls.map(([, init]) => (init as RequestInit & { headers: Record<string, string> }).headers['Idempotency-Key']);

    const save = screen.getByRole('button', { name: 'Save Rating' });
    fireEvent.click(save);
    fireEvent.click(save); // a double click: the second lands before React re-renders
    await waitFor(() => expect(notifier.error).toHaveBeenCalled());
    expect(fetchMock).toHaveBeenCalledTimes(1);

    fireEvent.click(await screen.findByRole('button', { name: 'Save Rating' })); // the retry after the failure
    await waitFor(() => expect(notifier.success).toHaveBeenCalled());
    expect(keys()).toHaveLength(2);
    expect(keys()[0]).toMatch(/^[0-9a-f]{32}$/);
    expect(keys()[1]).toBe(keys()[0]);

    answers = [{ status: 201, body: saved }];
    fireEvent.click(screen.getByRole('radio', { name: 'Joy: 5 stars, Very High' }));
    fireEvent.click(screen.getByRole('button', { name: 'Save Rating' }));
    await waitFor(() => expect(fetchMock).toHaveBeenCalledTimes(3));
    expect(keys()[2]).not.toBe(keys()[0]);
  });

  it('saves anew with a new key when the rating its key saved was deleted since (a lost answer, then a delete)', async () => {
    const saved = { id: 'r2', createdAt: new Date().toISOString(), overallScore: 3, relationships: 3, health: 3, purpose: 3, growth: 3, joy: 3 };
    const answers = [
      { status: 503, body: { statusCode: 503, code: 'store.unavailable', message: 'Saving is unavailable right now' } },
      { status: 409, body: { statusCode: 409, code: 'rating.idempotency_key_withdrawn', message: 'The rating this Idempotency-Key saved has been deleted since; send a new key to save a new rating' } },
      { status: 201, body: saved },
    ];
    const fetchMock = installFakeServer({ 'POST /api/joy-ratings': () => answers.shift()! });
    renderForm();
    const keys = () => fetchMock.mock.calls.map(([, init]) => (init as RequestInit & { headers: Record<string, string> }).headers['Idempotency-Key']);

    fireEvent.click(screen.getByRole('button', { name: 'Save Rating' }));
    await waitFor(() => expect(notifier.error).toHaveBeenCalledTimes(1));
    fireEvent.click(await screen.findByRole('button', { name: 'Save Rating' }));
    await waitFor(() => expect(notifier.success).toHaveBeenCalled());
    expect(notifier.error).toHaveBeenCalledTimes(1);
    expect(keys()).toHaveLength(3);
    expect(keys()[1]).toBe(keys()[0]);
    expect(keys()[2]).not.toBe(keys()[0]);
  });

  describe('"Rate an earlier day" starts at yesterday in the person\'s zone', () => {
    afterEach(() => jest.useRealTimers());
    it.each([
      // 23:30 in Berlin on the day the clocks go back: 24 hours earlier is still 2026-10-25.
      { now: '2026-10-25T22:30:00Z', zone: 'Europe/Berlin', yesterday: '2026-10-24' },
      // 00:30 in Berlin the day after the clocks went forward: 24 hours earlier is 2026-03-28.
      { now: '2026-03-29T22:30:00Z', zone: 'Europe/Berlin', yesterday: '2026-03-29' },
      { now: '2026-11-27T10:00:00Z', zone: 'Europe/Berlin', yesterday: '2026-11-26' },
      // The person's zone, not the browser's: 2026-11-27 07:00 UTC is still the 26th in Los Angeles.
      { now: '2026-11-27T07:00:00Z', zone: 'America/Los_Angeles', yesterday: '2026-11-25' },
    ])('at $now in $zone: $yesterday', ({ now, zone, yesterday }) => {
      jest.useFakeTimers({ now: new Date(now), doNotFake: ['queueMicrotask', 'nextTick', 'setImmediate'] });
      installFakeServer({});
      const client = createQueryClient();
      client.setQueryData(SETTINGS_KEY, { timeZone: zone });
      render(
        <QueryClientProvider client={client}>
          {inDataRouter(<RatingForm />)}
        </QueryClientProvider>,
      );
      fireEvent.click(screen.getByRole('checkbox', { name: 'Rate an earlier day' }));
      expect(screen.getByLabelText('Day')).toHaveValue(yesterday);
    });
  });
});

describe('a rating whose save found the session over', () => {
  function renderAs(userId: string | null) {
    const client = createQueryClient();
    if (userId) client.setQueryData(AUTH_USER_KEY, { id: userId, email: null, firstName: 'Ada', profileImageUrl: null });
    return render(
      <QueryClientProvider client={client}>
        {inDataRouter(<RatingForm />)}
      </QueryClientProvider>,
    );
  }
  let navigate: jest.SpyInstance;
  beforeEach(() => {
    sessionStorage.clear();
    resetUnauthorizedForTests();
    navigate = jest.spyOn(browser, 'navigate').mockImplementation(() => undefined);
  });
  afterEach(() => navigate.mockRestore());

  it('comes back, stars, note and day, once the same person is signed in again, until saved or discarded', async () => {
    installFakeServer({ 'POST /api/joy-ratings': { status: 401, body: { statusCode: 401, code: 'auth.unauthorized', message: 'Unauthorized' } } });
    const first = renderAs('u1');
    fireEvent.click(screen.getByRole('radio', { name: 'Joy: 5 stars, Very High' }));
    fireEvent.change(screen.getByRole('textbox', { name: /Note/ }), { target: { value: 'Long walk by the sea' } });
    fireEvent.click(screen.getByRole('checkbox', { name: 'Rate an earlier day' }));
    fireEvent.change(screen.getByLabelText('Day'), { target: { value: '2026-11-20' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save Rating' }));
    await waitFor(() => expect(navigate).toHaveBeenCalledWith('/api/login'), { timeout: 2000 });
    first.unmount();

    // Signed in again (the sign-in came back to the page): the form is as it was, and says why.
    const again = renderAs('u1');
    expect(screen.getByText('Your rating is back')).toBeInTheDocument();
    expect(screen.getByRole('radio', { name: 'Joy: 5 stars, Very High' })).toBeChecked();
    expect(screen.getByRole('textbox', { name: /Note/ })).toHaveValue('Long walk by the sea');
    expect(screen.getByLabelText('Day')).toHaveValue('2026-11-20');
    again.unmount();
    // Another page first (the Dashboard's form), then back: still there.
    const later = renderAs('u1');
    expect(screen.getByRole('textbox', { name: /Note/ })).toHaveValue('Long walk by the sea');
    fireEvent.click(screen.getByRole('button', { name: 'Discard' }));
    expect(screen.queryByText('Your rating is back')).not.toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: /Note/ })).toHaveValue('');
    expect(screen.getByRole('radio', { name: 'Joy: 3 stars, Moderate' })).toBeChecked();
    later.unmount();
    renderAs('u1');
    expect(screen.queryByText('Your rating is back')).not.toBeInTheDocument();
  });

  it('is forgotten once saved', async () => {
    keepUnsavedRating({ userId: 'u1', scores: { relationships: 4, health: 4, purpose: 4, growth: 4, joy: 4 }, note: 'Saved later', day: null });
    installFakeServer({ 'POST /api/joy-ratings': { status: 201, body: { id: 'r1', createdAt: '2026-11-27T10:00:00.000Z', day: '2026-11-27', relationships: 4, health: 4, purpose: 4, growth: 4, joy: 4, overallScore: 4, note: 'Saved later' } } });
    renderAs('u1');
    fireEvent.click(screen.getByRole('button', { name: 'Save Rating' }));
    await waitFor(() => expect(screen.queryByText('Your rating is back')).not.toBeInTheDocument());
    expect(sessionStorage.length).toBe(0);
  });

  it('is never shown to another person signing in in the same tab, and is dropped then', async () => {
    installFakeServer({ 'POST /api/joy-ratings': { status: 401, body: { statusCode: 401, code: 'auth.unauthorized', message: 'Unauthorized' } } });
    const first = renderAs('u1');
    fireEvent.change(screen.getByRole('textbox', { name: /Note/ }), { target: { value: 'Private' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save Rating' }));
    await waitFor(() => expect(sessionStorage.length).toBe(1));
    first.unmount();
    const other = renderAs('u2');
    expect(screen.getByRole('textbox', { name: /Note/ })).toHaveValue('');
    expect(sessionStorage.length).toBe(0);
    other.unmount();
    renderAs('u1');
    expect(screen.getByRole('textbox', { name: /Note/ })).toHaveValue('');
  });
});

describe('saving offline', () => {
  afterEach(() => onlineManager.setOnline(true));

  it('says at the button that the rating waits for the connection, and saves it when it is back', async () => {
    const fetchMock = installFakeServer({ 'POST /api/joy-ratings': { status: 201, body: { id: 'r1', createdAt: '2026-11-27T10:00:00.000Z', day: '2026-11-27', relationships: 3, health: 3, purpose: 3, growth: 3, joy: 3, overallScore: 3, note: null } } });
    renderForm();
    onlineManager.setOnline(false);
    fireEvent.click(screen.getByRole('button', { name: 'Save Rating' }));
    expect(await screen.findByText("You're offline. Your rating will be saved as soon as you're back online.")).toBeInTheDocument();
    expect(fetchMock).not.toHaveBeenCalledWith('/api/joy-ratings', expect.anything());
    act(() => onlineManager.setOnline(true));
    await waitFor(() => expect(notifier.success).toHaveBeenCalled());
    expect(screen.queryByText(/You're offline/)).not.toBeInTheDocument();
  });

  it('keeps a rating waiting offline in the tab: a reload gives it back, and saving it sends the same Idempotency-Key', async () => {
    sessionStorage.clear();
    const fetchMock = installFakeServer({ 'POST /api/joy-ratings': { status: 201, body: { id: 'r1', createdAt: '2026-11-27T10:00:00.000Z', day: '2026-11-27', relationships: 3, health: 3, purpose: 3, growth: 3, joy: 5, overallScore: 3.4, note: 'By the sea' } } });
    const client = createQueryClient();
    client.setQueryData(AUTH_USER_KEY, { id: 'u1', email: null, firstName: 'Ada', profileImageUrl: null });
    const page = () => render(<QueryClientProvider client={client}>{inDataRouter(<RatingForm />)}</QueryClientProvider>);
    const before = page();
    fireEvent.click(screen.getByRole('radio', { name: 'Joy: 5 stars, Very High' }));
    fireEvent.change(screen.getByRole('textbox', { name: /Note/ }), { target: { value: 'By the sea' } });
    onlineManager.setOnline(false);
    fireEvent.click(screen.getByRole('button', { name: 'Save Rating' }));
    await screen.findByText("You're offline. Your rating will be saved as soon as you're back online.");
    await waitFor(() => expect(sessionStorage.length).toBe(1));
    // The page reloaded before the connection came back: the waiting save is gone with it, the rating is not.
    before.unmount();
    client.getMutationCache().clear();
    onlineManager.setOnline(true);
    page();
    expect(screen.getByText('Your rating is back')).toBeInTheDocument();
    expect(screen.getByText(/You were offline when you saved it/)).toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: /Note/ })).toHaveValue('By the sea');
    const kept = JSON.parse(sessionStorage.getItem('joy.unsaved-rating')!).idempotencyKey;
    fireEvent.click(screen.getByRole('button', { name: 'Save Rating' }));
    await waitFor(() => expect(screen.queryByText('Your rating is back')).not.toBeInTheDocument());
    const posts = fetchMock.mock.calls.filter(([url, init]) => url === '/api/joy-ratings' && init?.method === 'POST');
    expect(posts.map(([, init]) => new Headers(init?.headers).get('Idempotency-Key'))).toEqual([kept]);
    expect(sessionStorage.length).toBe(0);
  });
});
