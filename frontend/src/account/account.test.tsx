import { QueryClientProvider } from '@tanstack/react-query';
import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { App as AntApp } from 'antd';
import { MemoryRouter } from 'react-router-dom';
import { createQueryClient } from '../api';
import { browser } from '../lib/session';
import { bindNotifier } from '../lib/toast';
import AccountPage from '../pages/Account';
import { installFakeServer, type FakeRoutes } from '../testing/fakeServer';

type FakeAnswer = Exclude<FakeRoutes[string], (url: string) => unknown>;
import { EXPORT_URLS, IMPORT_MESSAGES, IMPORT_TITLES, importResultText, isConfirmation, readableProblem } from './api';

jest.setTimeout(30_000);

const notifier = { error: jest.fn(), success: jest.fn(), info: jest.fn(), warning: jest.fn(), open: jest.fn(), destroy: jest.fn() };
const free = { 'GET /api/subscription-status': { status: 200, body: { isPremium: false, status: 'free', currentPeriodEnd: null, cancelAtPeriodEnd: false } } };
const button = (name: string) => screen.getAllByText(name).at(-1)!.closest('button')!;
const deletes = (fetchMock: jest.Mock) => fetchMock.mock.calls.filter(([url, init]) => url === '/api/account' && init?.method === 'DELETE');

/** What a browser does when the focused button is disabled or leaves the page: the focus falls to the page (jsdom keeps it). */
const dropFocus = () => {
  const away = document.createElement('input');
  document.body.append(away);
  away.focus();
  away.remove();
};

/** A route answering `reply` only once `answer` has been called (before or after the request came). */
function held(reply: FakeAnswer) {
  let answered = false;
  let waiting: ((reply: FakeAnswer) => void) | null = null;
  const route = () => new Promise<FakeAnswer>((resolve) => (answered ? resolve(reply) : (waiting = resolve)));
  const answer = () => {
    answered = true;
    waiting?.(reply);
  };
  return { route, answer };
}

function renderAccount(routes: FakeRoutes) {
  const fetchMock = installFakeServer({ ...free, ...routes });
  render(
    <AntApp>
      <QueryClientProvider client={createQueryClient()}>
        <MemoryRouter>
          <AccountPage />
        </MemoryRouter>
      </QueryClientProvider>
    </AntApp>,
  );
  return fetchMock;
}

beforeEach(() => {
  jest.clearAllMocks();
  bindNotifier(notifier);
});

describe('Account page: cancelling Joy Premium', () => {
  it('asks first with the focus on "Keep Joy Premium", so that Enter keeps the plan', async () => {
    const end = '2026-12-20T08:00:00.000Z';
    const fetchMock = renderAccount({ 'GET /api/subscription-status': { status: 200, body: { isPremium: true, status: 'active', currentPeriodEnd: end, cancelAtPeriodEnd: false } } });
    fireEvent.click(await screen.findByRole('button', { name: 'Cancel Subscription' }));
    const dialog = await screen.findByRole('dialog', { name: 'Cancel Joy Premium?' });
    const keep = within(dialog).getByRole('button', { name: 'Keep Joy Premium' });
    await waitFor(() => expect(keep).toHaveFocus());
    expect(within(dialog).getByRole('button', { name: 'Cancel Subscription' })).not.toHaveFocus();
    expect(fetchMock.mock.calls.filter(([url]) => url === '/api/subscription/cancel')).toHaveLength(0);
  });
});

describe('Account page: the plan\'s tag', () => {
  const end = '2026-12-20T08:00:00.000Z';
  /** WCAG contrast ratio of two colours written rgb(r, g, b) or #rrggbb. */
  const contrast = (a: string, b: string) => {
    const rgb = (c: string) => (c.startsWith('#') ? [1, 3, 5].map((i) => parseInt(c.slice(i, i + 2), 16)) : c.match(/\d+/g)!.slice(0, 3).map(Number));
    const lum = (c: string) => {
      const [r, g, b] = rgb(c).map((v) => v / 255).map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
    return (x + 0.05) / (y + 0.05);
  };
  // antd's green, orange and red tag backgrounds (@ant-design/colors green[0], orange[0], red[0]), on which its own
  // green and orange text colours (#389e0d, #d46b08) reach only 3.4:1.
  it.each([
    { status: 'active', cancelAtPeriodEnd: false, text: 'Active', preset: 'ant-tag-green', background: '#f6ffed' },
    { status: 'canceling', cancelAtPeriodEnd: true, text: 'Canceled', preset: 'ant-tag-orange', background: '#fff7e6' },
    { status: 'lapsed', cancelAtPeriodEnd: false, text: 'Paused', preset: 'ant-tag-red', background: '#fff1f0' },
  ])('says "$text" in a colour with at least 4.5:1 on its tag (axe color-contrast)', async ({ status, cancelAtPeriodEnd, text, preset, background }) => {
    renderAccount({ 'GET /api/subscription-status': { status: 200, body: { isPremium: status !== 'lapsed', status, currentPeriodEnd: end, cancelAtPeriodEnd } } });
    const tag = (await screen.findByText(text)).closest<HTMLElement>('.ant-tag')!;
    expect(tag).toHaveClass(preset);
    const color = getComputedStyle(tag).color;
    expect(color).toMatch(/^(rgb|#)/);
    expect(contrast(color, background)).toBeGreaterThanOrEqual(4.5);
  });
});

describe('Account page: passkeys', () => {
  const passkeys = [
    { id: 'pk-1', createdAt: '2026-11-27T10:00:00.000Z' },
    { id: 'pk-2', createdAt: '2026-11-28T10:00:00.000Z' },
  ];
  const removals = (fetchMock: jest.Mock) => fetchMock.mock.calls.filter(([url, init]) => String(url).startsWith('/api/account/passkeys/') && init?.method === 'DELETE');
  /** The passkeys card over a server that removes a passkey when told to (answering when `answer` is called). */
  function renderPasskeys(kept: { id: string; createdAt: string }[]) {
    let list = [...kept];
    let answer = () => undefined as void;
    const fetchMock = renderAccount({
      'GET /api/account/passkeys': () => ({ status: 200, body: { available: true, passkeys: list } }),
      'DELETE /api/account/passkeys/*': (url) =>
        new Promise((resolve) => {
          answer = () => {
            list = list.filter((p) => `/api/account/passkeys/${p.id}` !== url);
            resolve({ status: 204 });
          };
        }),
    });
    return { fetchMock, answer: () => answer() };
  }
  /** Opens the question from the focused Remove button, as a keyboard does. */
  async function askToRemove(label: RegExp) {
    const opener = await screen.findByRole('button', { name: label });
    act(() => opener.focus());
    fireEvent.click(opener);
    const question = (await screen.findByText(/^Remove Passkey added on/)).closest<HTMLElement>('.ant-popover')!;
    await waitFor(() => expect(within(question).getByRole('button', { name: 'Keep it' })).toHaveFocus());
    return { opener, question };
  }

  it("says when a passkey was added in the person's zone (their setting), as every other time, not the device's", async () => {
    renderAccount({
      'GET /api/account/passkeys': { status: 200, body: { available: true, passkeys: [{ id: 'pk-1', createdAt: '2026-11-28T13:51:00.000Z' }] } },
      'GET /api/settings': { status: 200, body: { timeZone: 'Pacific/Auckland', acceptCareActions: true } },
    });
    expect(await screen.findByText(/^Passkey added on Nov 29, 2026, 2:51\sAM$/)).toBeInTheDocument();
  });

  it('asks first, naming the passkey and what removing it means; Keep it removes nothing', async () => {
    const { fetchMock } = renderPasskeys(passkeys);
    const { opener, question } = await askToRemove(/^Remove Passkey added on Nov 27, 2026/);
    expect(within(question).getByText(/^Remove Passkey added on Nov 27, 2026, \d+:00 [AP]M\?$/)).toBeInTheDocument();
    expect(within(question).getByText('You will no longer be able to sign in with it. Your password still works.')).toBeInTheDocument();
    fireEvent.click(within(question).getByRole('button', { name: 'Keep it' }));
    await waitFor(() => expect(opener).toHaveFocus());
    expect(removals(fetchMock)).toHaveLength(0);
    expect(within(screen.getByRole('list', { name: 'Your passkeys' })).getByText(/^Passkey added on Nov 27, 2026/)).toBeInTheDocument();
  });

  it('removes it once confirmed, says so, and puts the focus on the list of the others (not the page)', async () => {
    const { fetchMock, answer } = renderPasskeys(passkeys);
    const { opener, question } = await askToRemove(/^Remove Passkey added on Nov 27, 2026/);
    fireEvent.click(within(question).getByRole('button', { name: 'Remove passkey' }));
    await waitFor(() => expect(removals(fetchMock)).toHaveLength(1));
    expect(removals(fetchMock)[0][0]).toBe('/api/account/passkeys/pk-1');
    await waitFor(() => expect(opener).toBeDisabled());
    act(dropFocus);
    answer();
    await waitFor(() => expect(notifier.success).toHaveBeenCalledWith(expect.objectContaining({ title: 'Passkey removed', description: 'It no longer signs you in to Joy.' })));
    const list = screen.getByRole('list', { name: 'Your passkeys' });
    await waitFor(() => expect(within(list).queryByText(/added on Nov 27, 2026/)).not.toBeInTheDocument());
    // The other keeps its name (a number would have changed).
    expect(within(list).getByText(/^Passkey added on Nov 28, 2026/)).toBeInTheDocument();
    await waitFor(() => expect(list).toHaveFocus());
  });

  it('puts the focus on the Passkeys card when the last passkey is removed', async () => {
    const { answer } = renderPasskeys(passkeys.slice(0, 1));
    const { opener, question } = await askToRemove(/^Remove Passkey added on Nov 27, 2026/);
    const card = opener.closest('.ant-card')!;
    fireEvent.click(within(question).getByRole('button', { name: 'Remove passkey' }));
    await waitFor(() => expect(opener).toBeDisabled());
    act(dropFocus);
    answer();
    await waitFor(() => expect(screen.queryByRole('list', { name: 'Your passkeys' })).not.toBeInTheDocument());
    await waitFor(() => expect(card).toHaveFocus());
    expect(within(card as HTMLElement).getByRole('button', { name: 'Add a passkey' })).toBeInTheDocument();
  });
});

describe('Account page: your data', () => {
  it('saves the export as a file under the name the server gives, for JSON and for CSV', async () => {
    const saved: { href: string; download: string }[] = [];
    const click = jest.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      saved.push({ href: this.href, download: this.download });
    });
    const urls = { createObjectURL: jest.fn(() => 'blob:joy-export'), revokeObjectURL: jest.fn() };
    Object.assign(URL, urls);
    try {
      const fetchMock = renderAccount({
        [`GET ${EXPORT_URLS.json}`]: { status: 200, body: { formatVersion: 1, ratings: [] }, headers: { 'Content-Disposition': 'attachment; filename="joy-export-2026-11-27.json"' } },
        [`GET ${EXPORT_URLS.csv}`]: { status: 200, body: 'id,createdAt', headers: { 'Content-Disposition': 'attachment; filename="joy-export-2026-11-27.csv"' } },
      });
      await screen.findByText('Your Data');
      fireEvent.click(screen.getByRole('button', { name: /Download JSON/ }));
      await waitFor(() => expect(saved).toHaveLength(1));
      fireEvent.click(screen.getByRole('button', { name: /Download CSV/ }));
      await waitFor(() => expect(saved).toHaveLength(2));
      expect(saved.map((s) => s.download)).toEqual(['joy-export-2026-11-27.json', 'joy-export-2026-11-27.csv']);
      expect(saved[0].href).toBe('blob:joy-export');
      expect(fetchMock).toHaveBeenCalledWith(EXPORT_URLS.json, expect.anything());
      expect(fetchMock).toHaveBeenCalledWith('/api/account/export?format=csv', expect.anything());
      expect(notifier.error).not.toHaveBeenCalled();
    } finally {
      click.mockRestore();
    }
  });

  it.each(['JSON', 'CSV'] as const)('gives the focus back to Download %s once its download is done (both are disabled meanwhile)', async (format) => {
    const click = jest.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => undefined);
    Object.assign(URL, { createObjectURL: jest.fn(() => 'blob:joy-export'), revokeObjectURL: jest.fn() });
    const exported = held({ status: 200, body: {} });
    try {
      renderAccount({ [`GET ${EXPORT_URLS[format === 'JSON' ? 'json' : 'csv']}`]: exported.route });
      await screen.findByText('Your Data');
      const pressed = screen.getByRole('button', { name: new RegExp(`Download ${format}`) });
      act(() => pressed.focus());
      fireEvent.click(pressed);
      await waitFor(() => expect(pressed).toBeDisabled());
      act(dropFocus);
      exported.answer();
      await waitFor(() => expect(pressed).toBeEnabled());
      await waitFor(() => expect(pressed).toHaveFocus());
    } finally {
      click.mockRestore();
    }
  });

  it('says why a download was refused (the hourly limit), instead of a silently cancelled download', async () => {
    const limit = 'You have downloaded or imported your data many times in the last hour. Please try again later.';
    const fetchMock = renderAccount({
      [`GET ${EXPORT_URLS.json}`]: { status: 429, body: { statusCode: 429, code: 'request.rate_limited', message: limit }, headers: { 'Retry-After': '3600' } },
    });
    await screen.findByText('Your Data');
    fireEvent.click(screen.getByRole('button', { name: /Download JSON/ }));
    await waitFor(() => expect(notifier.error).toHaveBeenCalledWith(expect.objectContaining({ title: 'Download failed', description: limit })));
    expect(fetchMock).toHaveBeenCalledWith(EXPORT_URLS.json, expect.anything());
    expect(screen.getByRole('button', { name: /Download JSON/ })).toBeEnabled();
  });
});

describe('Account page: importing ratings', () => {
  const exportFile = { exportedAt: '2026-11-20T09:00:00.000Z', formatVersion: 1, ratings: [{ id: 'r1', createdAt: '2026-11-19T08:00:00.000Z', overallScore: 3, relationships: 3, health: 3, purpose: 3, growth: 3, joy: 3 }] };
  const choose = async (content: string, name = 'joy-export-2026-11-20.json') => {
    await screen.findByRole('heading', { name: 'Import ratings' });
    const input = document.querySelector<HTMLInputElement>('.ant-upload input[type="file"]')!;
    expect(input).toHaveAttribute('accept', '.json,application/json');
    fireEvent.change(input, { target: { files: [new File([content], name, { type: 'application/json' })] } });
  };
  const imports = (fetchMock: jest.Mock) => fetchMock.mock.calls.filter(([url, init]) => url === '/api/account/import' && init?.method === 'POST');

  it('says how many ratings were imported and how many were here already', () => {
    expect(importResultText({ imported: 12, skipped: 3 })).toBe('12 ratings imported, 3 already here');
    expect(importResultText({ imported: 1, skipped: 0 })).toBe('1 rating imported, 0 already here');
  });

  it('reads the chosen file in the browser, posts its JSON, and shows the result', async () => {
    const fetchMock = renderAccount({ 'POST /api/account/import': { status: 200, body: { imported: 12, skipped: 3 } } });
    await choose(JSON.stringify(exportFile));
    expect(await screen.findByText('12 ratings imported, 3 already here')).toBeInTheDocument();
    expect(imports(fetchMock)).toHaveLength(1);
    expect(JSON.parse(imports(fetchMock)[0][1].body)).toEqual(exportFile);
    expect(imports(fetchMock)[0][1].headers).toMatchObject({ 'Content-Type': 'application/json' });
  });

  it('shows the server’s words naming the field when the file is refused', async () => {
    const message = 'ratings[3].health must be a whole number from 1 to 5';
    renderAccount({ 'POST /api/account/import': { status: 400, body: { statusCode: 400, code: 'request.invalid', message, errors: [{ field: 'ratings[3].health', message }] } } });
    await choose(JSON.stringify(exportFile));
    expect(await screen.findByText(IMPORT_TITLES.nothing)).toBeInTheDocument();
    // Counted from 1, as a person counts the ratings of a file.
    expect(screen.getByText('Rating 4 in the file: health must be a whole number from 1 to 5')).toBeInTheDocument();
  });

  it('lists every problem the server named, so that one fix of the file is enough', async () => {
    const problems = ['ratings[0].day must not be in the future', 'ratings[4].createdAt must be a date and time such as 2026-11-20T08:30:00.000Z', 'ratings[9].joy must be a whole number from 1 to 5'];
    renderAccount({
      'POST /api/account/import': {
        status: 400,
        body: { statusCode: 400, code: 'request.invalid', message: problems[0], errors: problems.map((message, i) => ({ field: `ratings[${i}]`, message })) },
      },
    });
    await choose(JSON.stringify(exportFile));
    expect(await screen.findByText(IMPORT_TITLES.nothing)).toBeInTheDocument();
    for (const problem of [
      'Rating 1 in the file: day must not be in the future',
      'Rating 5 in the file: createdAt must be a date and time such as 2026-11-20T08:30:00.000Z',
      'Rating 10 in the file: joy must be a whole number from 1 to 5',
    ]) {
      expect(screen.getByText(problem)).toBeInTheDocument();
    }
  });

  it('counts the ratings of a file from 1 in what it shows, and leaves other words as the server wrote them', () => {
    expect(readableProblem('ratings[0] must be an object')).toBe('Rating 1 in the file must be an object');
    expect(readableProblem('ratings[41].note must be text of at most 500 characters, or null')).toBe('Rating 42 in the file: note must be text of at most 500 characters, or null');
    expect(readableProblem('formatVersion must be 1 (a JSON export of Joy)')).toBe('formatVersion must be 1 (a JSON export of Joy)');
    expect(readableProblem('ratings must be a list')).toBe('ratings must be a list');
  });

  it('shows the server’s words naming the day when a day of the file is full', async () => {
    const message = 'The file would give 2025-06-01 more than 100 ratings, the most one day can hold (it has 0 in Joy now). Take some of that day out of the file, or delete some of it in Joy, and import again.';
    renderAccount({ 'POST /api/account/import': { status: 409, body: { statusCode: 409, code: 'rating.day_full', message } } });
    await choose(JSON.stringify(exportFile));
    expect(await screen.findByText(message)).toBeInTheDocument();
  });

  // What the card says is stored after a failed import: its title, the words under it, and the kind of alert.
  it.each([
    {
      when: 'the server stopped between two writes: part of it, and how much (a warning: the same file adds the rest)',
      answer: { status: 503, code: 'account.import_incomplete', message: 'The import stopped part way: 500 ratings were imported before it stopped. Import the same file again to add the rest; nothing is added twice.' },
      title: IMPORT_TITLES.part,
      text: 'The import stopped part way: 500 ratings were imported before it stopped. Import the same file again to add the rest; nothing is added twice.',
      alert: 'ant-alert-warning',
    },
    {
      when: 'saving was unavailable from the first write: nothing, in the server’s words',
      answer: { status: 503, code: 'store.unavailable', message: 'Saving is unavailable right now, so nothing was saved. Please try again later.' },
      title: IMPORT_TITLES.nothing,
      text: 'Saving is unavailable right now, so nothing was saved. Please try again later.',
      alert: 'ant-alert-error',
    },
    {
      when: 'the server failed without saying what it stored: never "nothing"',
      answer: { status: 500, code: 'internal', message: 'Internal server error' },
      title: IMPORT_TITLES.unknown,
      text: IMPORT_MESSAGES.failed,
      alert: 'ant-alert-error',
    },
  ])('says what is stored when $when', async ({ answer, title, text, alert }) => {
    renderAccount({ 'POST /api/account/import': { status: answer.status, body: { statusCode: answer.status, code: answer.code, message: answer.message } } });
    await choose(JSON.stringify(exportFile));
    expect(await screen.findByText(title)).toBeInTheDocument();
    expect(screen.getByText(text).closest('.ant-alert')).toHaveClass(alert);
    if (title !== IMPORT_TITLES.nothing) expect(screen.queryByText(IMPORT_TITLES.nothing)).not.toBeInTheDocument();
  });

  it('gives the focus back to its button (blurred by the upload when it opens the picker) once a file is chosen, and says the result once', async () => {
    const imported = held({ status: 200, body: { imported: 12, skipped: 3 } });
    renderAccount({ 'POST /api/account/import': imported.route });
    const opener = await screen.findByRole('button', { name: /Choose a JSON export/ });
    act(() => opener.focus());
    fireEvent.click(opener);
    expect(opener).not.toHaveFocus();
    await choose(JSON.stringify(exportFile));
    expect(opener).toHaveFocus();
    imported.answer();
    const result = await screen.findByText('12 ratings imported, 3 already here');
    expect(opener).toHaveFocus();
    // Read by the live region it is in, not again as an alert of its own.
    expect(result.closest('[aria-live="polite"]')).not.toBeNull();
    expect(result.closest('[role="alert"]')).toBeNull();
  });

  it('gives the focus back to its button when the file picker is cancelled', async () => {
    renderAccount({});
    const opener = await screen.findByRole('button', { name: /Choose a JSON export/ });
    act(() => opener.focus());
    fireEvent.click(opener);
    expect(opener).not.toHaveFocus();
    fireEvent(document.querySelector('.ant-upload input[type="file"]')!, new Event('cancel', { bubbles: true }));
    expect(opener).toHaveFocus();
  });

  it('says a refusal once too: no alert inside its live region', async () => {
    renderAccount({ 'POST /api/account/import': { status: 500, body: { statusCode: 500, code: 'internal', message: 'Internal server error' } } });
    await choose(JSON.stringify(exportFile));
    const title = await screen.findByText(IMPORT_TITLES.unknown);
    expect(title.closest('[aria-live="polite"]')).not.toBeNull();
    expect(title.closest('[role="alert"]')).toBeNull();
  });

  it('sends nothing for a file that is not JSON, and says which file to choose', async () => {
    const fetchMock = renderAccount({});
    await choose('date,mood\r\n2026-11-19,3', 'mood-diary.csv');
    expect(await screen.findByText(IMPORT_MESSAGES.notJson)).toBeInTheDocument();
    expect(imports(fetchMock)).toHaveLength(0);
  });

  it("says that Joy's own CSV export is for spreadsheets and that the JSON one is imported (not that it is no Joy export)", async () => {
    const fetchMock = renderAccount({});
    await choose('\uFEFFsection,id,date\r\nrating,r1,2026-11-19', 'joy-export-2026-11-28.csv');
    expect(await screen.findByText(IMPORT_MESSAGES.csv)).toBeInTheDocument();
    expect(screen.queryByText(IMPORT_MESSAGES.notJson)).not.toBeInTheDocument();
    expect(imports(fetchMock)).toHaveLength(0);
  });
});

describe('Account page: care actions setting', () => {
  it('shows whether care actions are accepted and declines them with one switch (PATCH /api/settings)', async () => {
    const fetchMock = renderAccount({
      'GET /api/settings': { status: 200, body: { acceptCareActions: true } },
      'PATCH /api/settings': { status: 200, body: { acceptCareActions: false } },
    });
    const toggle = await screen.findByRole('switch', { name: /Accept care actions from my groups/ });
    await waitFor(() => expect(toggle).toHaveAttribute('aria-checked', 'true'));
    expect(screen.getByText('Members of your groups with Joy Premium can send you flowers, cards and gifts.')).toBeInTheDocument();
    fireEvent.click(toggle);
    await waitFor(() => expect(toggle).toHaveAttribute('aria-checked', 'false'));
    await screen.findByText('Nobody can send you care actions, and care suggestions do not name you.');
    const patches = fetchMock.mock.calls.filter(([url, init]) => url === '/api/settings' && init?.method === 'PATCH');
    expect(patches).toHaveLength(1);
    expect(JSON.parse(String(patches[0][1]!.body))).toEqual({ acceptCareActions: false });
    expect(notifier.success).toHaveBeenCalledWith(expect.objectContaining({ title: 'Settings saved' }));
  });

  it('keeps the switch enabled and focused while saving, saying its new state; a press meanwhile sends nothing', async () => {
    const saving = held({ status: 200, body: { acceptCareActions: false } });
    const fetchMock = renderAccount({ 'GET /api/settings': { status: 200, body: { acceptCareActions: true } }, 'PATCH /api/settings': saving.route });
    const toggle = await screen.findByRole('switch', { name: /Accept care actions from my groups/ });
    await waitFor(() => expect(toggle).toBeEnabled());
    act(() => toggle.focus());
    fireEvent.click(toggle);
    await waitFor(() => expect(toggle).toHaveAttribute('aria-busy', 'true'));
    // A disabled switch would have dropped the focus to the page in a browser.
    expect(toggle).toBeEnabled();
    expect(toggle).toHaveFocus();
    expect(toggle).toHaveAttribute('aria-checked', 'false');
    fireEvent.click(toggle);
    expect(toggle).toHaveAttribute('aria-checked', 'false');
    saving.answer();
    await waitFor(() => expect(toggle).toHaveAttribute('aria-busy', 'false'));
    const patches = fetchMock.mock.calls.filter(([url, init]) => url === '/api/settings' && init?.method === 'PATCH');
    expect(patches.map(([, init]) => JSON.parse(String(init!.body)))).toEqual([{ acceptCareActions: false }]);
    expect(toggle).toHaveAttribute('aria-checked', 'false');
    expect(toggle).toHaveFocus();
  });

  it('keeps the switch as it was and says so when saving fails', async () => {
    renderAccount({
      'GET /api/settings': { status: 200, body: { acceptCareActions: true } },
      'PATCH /api/settings': { status: 503, body: { statusCode: 503, message: 'Saving is unavailable right now, so nothing was saved. Please try again later.' } },
    });
    const toggle = await screen.findByRole('switch', { name: /Accept care actions from my groups/ });
    await waitFor(() => expect(toggle).toHaveAttribute('aria-checked', 'true'));
    fireEvent.click(toggle);
    await waitFor(() => expect(notifier.error).toHaveBeenCalledWith(expect.objectContaining({ title: 'Error' })));
    expect(toggle).toHaveAttribute('aria-checked', 'true');
  });
});

describe('Account page: deleting the account', () => {
  it('accepts only the word DELETE as confirmation', () => {
    expect(isConfirmation('DELETE')).toBe(true);
    expect(isConfirmation(' DELETE ')).toBe(true);
    expect(isConfirmation('delete')).toBe(false);
    expect(isConfirmation('')).toBe(false);
  });

  it('explains what happens and keeps the button disabled until DELETE is typed; cancelling deletes nothing', async () => {
    const fetchMock = renderAccount({});
    fireEvent.click(await screen.findByText('Delete account'));
    expect(await screen.findByText('Delete your account?')).toBeInTheDocument();
    expect(screen.getByText(/become unreadable everywhere/)).toBeInTheDocument();
    expect(screen.getByText(/You leave all your groups/)).toBeInTheDocument();
    // A free account has no Premium to end.
    expect(screen.queryByText(/Joy Premium ends now/)).not.toBeInTheDocument();
    // Not "signing in again": with Joy's own sign-in the password goes with the account, and signing in again fails.
    expect(screen.getByText('You are signed out on every device. To use Joy again later, you start over with a new, empty account.')).toBeInTheDocument();
    expect(screen.queryByText(/Signing in again/)).not.toBeInTheDocument();
    expect(button('Delete my account')).toBeDisabled();
    fireEvent.change(screen.getByLabelText(/to confirm/), { target: { value: 'delete' } });
    expect(button('Delete my account')).toBeDisabled();
    fireEvent.click(button('Keep my account'));
    expect(deletes(fetchMock)).toHaveLength(0);
  });

  it.each([
    ['its button', () => fireEvent.click(button('Go to the home page'))],
    ['closing the dialog', () => fireEvent.click(screen.getByRole('button', { name: 'Close' }))],
  ])('deletes with { confirm: "DELETE" }, says goodbye until the person leaves, then goes to the landing page (by %s)', async (_how, leave) => {
    jest.useFakeTimers({ doNotFake: ['queueMicrotask', 'nextTick', 'setImmediate'] });
    const navigate = jest.spyOn(browser, 'navigate').mockImplementation(() => undefined);
    try {
      const fetchMock = renderAccount({ 'DELETE /api/account': { status: 204 } });
      fireEvent.click(await screen.findByText('Delete account'));
      fireEvent.change(await screen.findByLabelText(/to confirm/), { target: { value: 'DELETE' } });
      expect(button('Delete my account')).toBeEnabled();
      // Twice in one frame (Enter twice): one deletion sent.
      fireEvent.click(button('Delete my account'));
      fireEvent.click(button('Delete my account'));
      await waitFor(() => expect(deletes(fetchMock)).toHaveLength(1));
      expect(JSON.parse(deletes(fetchMock)[0][1].body)).toEqual({ confirm: 'DELETE' });
      expect(deletes(fetchMock)[0][1].headers).toEqual({ 'Content-Type': 'application/json' });
      const dialog = await screen.findByRole('dialog', { name: 'Account deleted' });
      expect(within(dialog).getByRole('status')).toHaveTextContent('Your personal data has been erased. Goodbye, and take care.');
      expect(within(dialog).queryByLabelText(/to confirm/)).toBeNull();
      // It waits for the person: nothing leaves by itself, and nothing is asked of the server again (it would answer 401).
      const requests = fetchMock.mock.calls.length;
      act(() => jest.advanceTimersByTime(60_000));
      expect(navigate).not.toHaveBeenCalled();
      expect(fetchMock.mock.calls.length).toBe(requests);
      leave();
      expect(navigate).toHaveBeenCalledWith('/');
    } finally {
      navigate.mockRestore();
      jest.useRealTimers();
    }
  });

  it('tells a Premium member that Joy Premium ends with the account', async () => {
    renderAccount({ 'GET /api/subscription-status': { status: 200, body: { isPremium: true, status: 'active', currentPeriodEnd: '2026-12-28T00:00:00.000Z', cancelAtPeriodEnd: false } } });
    fireEvent.click(await screen.findByText('Delete account'));
    expect(await screen.findByText('Joy Premium ends now, with no further charge.')).toBeInTheDocument();
  });

  it('says so when the deletion fails, and stays', async () => {
    const navigate = jest.spyOn(browser, 'navigate').mockImplementation(() => undefined);
    renderAccount({ 'DELETE /api/account': { status: 500, body: { statusCode: 500, code: 'internal', message: 'Internal server error' } } });
    fireEvent.click(await screen.findByText('Delete account'));
    fireEvent.change(await screen.findByLabelText(/to confirm/), { target: { value: 'DELETE' } });
    fireEvent.click(button('Delete my account'));
    await waitFor(() => expect(notifier.error).toHaveBeenCalledWith(expect.objectContaining({ description: 'Failed to delete your account. Please try again.' })));
    expect(navigate).not.toHaveBeenCalled();
    navigate.mockRestore();
  });
});
