import { QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter, useLocation } from 'react-router-dom';
import { useState } from 'react';
import { createQueryClient } from '../api';
import { antdPageTests } from '../testing/antdPages';
import { installFakeServer, type FakeRoutes } from '../testing/fakeServer';
import { CareReceived } from './CareReceived';
import { CareSuggestions } from './CareSuggestions';
import CareSentPage from '../pages/CareSent';

const suggestions = [{ userId: 'u2', firstName: 'Bob', latestScore: 2 }];
const plan = (isPremium: boolean) => ({ status: 200, body: { isPremium, status: isPremium ? 'active' : 'free' } });

let location = '';
function LocationProbe() {
  const current = useLocation();
  location = current.pathname;
  return null;
}

function renderWith(routes: FakeRoutes, ui: React.ReactNode) {
  const fetchMock = installFakeServer(routes);
  render(
    <QueryClientProvider client={createQueryClient()}>
      <MemoryRouter initialEntries={['/groups?group=g1']}>
        {ui}
        <LocationProbe />
      </MemoryRouter>
    </QueryClientProvider>,
  );
  return fetchMock;
}
const suggestionsUi = <CareSuggestions groupId="g1" nameOf={(_id, name) => name ?? 'A member'} />;

const notifier = antdPageTests();

describe('care suggestions on a group page', () => {
  it('offers a free member the Upgrade, which leads to /subscribe', async () => {
    renderWith({ 'GET /api/groups/g1/care-suggestions': { status: 200, body: suggestions }, 'GET /api/subscription-status': plan(false) }, suggestionsUi);
    expect(await screen.findByText('Bob could use some support')).toBeInTheDocument();
    const upgrade = await screen.findByRole('link', { name: 'Upgrade to send care to Bob' });
    expect(upgrade).toHaveAttribute('href', '/subscribe');
    expect(screen.queryByRole('button', { name: /Send care/ })).not.toBeInTheDocument();
    fireEvent.click(upgrade);
    await waitFor(() => expect(location).toBe('/subscribe'));
  });

  it('shows nothing when nobody needs support, or when the suggestions cannot be loaded', async () => {
    const fetchMock = renderWith({ 'GET /api/groups/g1/care-suggestions': { status: 200, body: [] }, 'GET /api/subscription-status': plan(true) }, suggestionsUi);
    await waitFor(() => expect(fetchMock).toHaveBeenCalledWith('/api/groups/g1/care-suggestions', expect.anything()));
    expect(screen.queryByText(/could use some support/)).not.toBeInTheDocument();
  });

  it('lets a premium member send care: four kinds, an optional message with a counter, then "Care sent!"', async () => {
    let release: () => void = () => undefined;
    const fetchMock = renderWith(
      {
        'GET /api/groups/g1/care-suggestions': { status: 200, body: suggestions },
        'GET /api/subscription-status': plan(true),
        'POST /api/care-actions': () =>
          new Promise((resolve) => {
            release = () => resolve({ status: 201, body: { id: 'c1', kind: 'handwritten_card', status: 'sent' } });
          }),
      },
      suggestionsUi,
    );
    fireEvent.click(await screen.findByRole('button', { name: 'Send care to Bob' }));
    const dialog = await screen.findByRole('dialog', { name: 'Send care to Bob' });
    const radios = within(dialog).getAllByRole('radio');
    expect(radios.map((r) => r.closest('label')?.querySelector('.care-kind__name')?.textContent)).toEqual([
      'Flowers', 'Handwritten card', 'Digital gift card', 'Care package',
    ]);
    expect(within(dialog).getByRole('radio', { name: /Flowers/ })).toBeChecked();
    fireEvent.click(within(dialog).getByRole('radio', { name: /Handwritten card/ }));
    const message = within(dialog).getByLabelText('Message (optional)');
    // Counted as people count: 500 emoji fit, a longer paste is cut to them.
    fireEvent.change(message, { target: { value: '🙂'.repeat(501) } });
    expect(message).toHaveValue('🙂'.repeat(500));
    expect(within(dialog).getByText('500 / 500')).toBeInTheDocument();
    fireEvent.change(message, { target: { value: '  Thinking of you  ' } });
    expect(within(dialog).getByText('19 / 500')).toBeInTheDocument();
    fireEvent.click(within(dialog).getByRole('button', { name: 'Send Care' }));
    expect(await within(dialog).findByRole('button', { name: 'Sending...' })).toBeDisabled();
    const post = fetchMock.mock.calls.find(([, init]) => init?.method === 'POST')!;
    expect(post[0]).toBe('/api/care-actions');
    expect(JSON.parse(String(post[1]!.body))).toEqual({ groupId: 'g1', recipientId: 'u2', kind: 'handwritten_card', message: 'Thinking of you' });
    release();
    await waitFor(() =>
      expect(notifier.success).toHaveBeenCalledWith(expect.objectContaining({ title: 'Care sent!', description: 'Bob will receive your handwritten card.' })),
    );
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
  });

  it('names the care sent to a member today on their card, and then offers to send more', async () => {
    const sentAt = new Date().toISOString();
    const sent = (recipientId: string, kind: string, at: string) => ({ id: `c-${kind}`, groupId: 'g2', recipientId, recipientFirstName: 'Bob', kind, message: null, sentAt: at, status: 'sent', thankedAt: null });
    renderWith(
      {
        'GET /api/groups/g1/care-suggestions': { status: 200, body: [...suggestions, { userId: 'u3', firstName: 'Cy', latestScore: 1 }] },
        'GET /api/subscription-status': plan(true),
        'GET /api/settings': { status: 200, body: { firstName: 'Ada', timeZone: null, reminderTime: null, acceptCareActions: true } },
        // Bob got a card today (through another group) and flowers last year; Cy nothing.
        'GET /api/care-actions/sent': { status: 200, body: [sent('u2', 'handwritten_card', sentAt), sent('u2', 'flowers', '2025-03-01T09:00:00.000Z')] },
      },
      suggestionsUi,
    );
    const [bob, cy] = await screen.findAllByTestId('care-suggestion');
    expect(await within(bob).findByText('You sent care today: Handwritten card.')).toBeInTheDocument();
    expect(within(bob).getByRole('button', { name: 'Send more care to Bob' })).toHaveTextContent('Send more care');
    expect(within(cy).queryByTestId('care-sent-today')).not.toBeInTheDocument();
    expect(within(cy).getByRole('button', { name: 'Send care to Cy' })).toBeInTheDocument();
  });

  it('stops offering more care to someone who was sent the most a day allows (3 in 24 hours), each kind named once', async () => {
    const at = new Date().toISOString();
    const sent = (id: string, kind: string) => ({ id, groupId: 'g1', recipientId: 'u2', recipientFirstName: 'Bob', kind, message: null, sentAt: at, status: 'sent', thankedAt: null });
    renderWith(
      {
        'GET /api/groups/g1/care-suggestions': { status: 200, body: suggestions },
        'GET /api/subscription-status': plan(true),
        'GET /api/settings': { status: 200, body: { firstName: 'Ada', timeZone: null, reminderTime: null, acceptCareActions: true } },
        'GET /api/care-actions/sent': { status: 200, body: [sent('c1', 'flowers'), sent('c2', 'handwritten_card'), sent('c3', 'flowers')] },
      },
      suggestionsUi,
    );
    const card = await screen.findByTestId('care-suggestion');
    expect(await within(card).findByText('You sent care today: Flowers, Handwritten card.')).toBeInTheDocument();
    expect(within(card).getByTestId('care-limit')).toHaveTextContent('3 in 24 hours');
    expect(within(card).queryByRole('button')).not.toBeInTheDocument();
  });

  it('gives the focus back to the Send care button when the dialog is closed', async () => {
    renderWith(
      {
        'GET /api/groups/g1/care-suggestions': { status: 200, body: suggestions },
        'GET /api/subscription-status': plan(true),
      },
      suggestionsUi,
    );
    const opener = await screen.findByRole('button', { name: 'Send care to Bob' });
    opener.focus();
    fireEvent.click(opener);
    const dialog = await screen.findByRole('dialog', { name: 'Send care to Bob' });
    within(dialog).getByRole('button', { name: 'Cancel' }).focus(); // the focus is in the dialog, as a keyboard leaves it
    expect(opener).not.toHaveFocus();
    fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    await waitFor(() => expect(screen.getByRole('button', { name: 'Send care to Bob' })).toHaveFocus());
  });

  it('tells a failure with the Error toast and keeps the dialog open; the same send again keeps its Idempotency-Key', async () => {
    const fetchMock = renderWith(
      {
        'GET /api/groups/g1/care-suggestions': { status: 200, body: suggestions },
        'GET /api/subscription-status': plan(true),
        'POST /api/care-actions': { status: 500, body: { statusCode: 500, code: 'internal', message: 'Internal server error' } },
      },
      suggestionsUi,
    );
    fireEvent.click(await screen.findByRole('button', { name: 'Send care to Bob' }));
    const dialog = await screen.findByRole('dialog', { name: 'Send care to Bob' });
    // A double click: one request (two ordered two gifts).
    fireEvent.click(within(dialog).getByRole('button', { name: 'Send Care' }));
    fireEvent.click(within(dialog).getByRole('button', { name: 'Send Care' }));
    await waitFor(() =>
      expect(notifier.error).toHaveBeenCalledWith(expect.objectContaining({ title: 'Error', description: 'Failed to send care action. Please try again.' })),
    );
    expect(within(dialog).getByRole('button', { name: 'Send Care' })).toBeEnabled();
    // Its answer may have been lost after it was sent: tried again unchanged, it carries the same key (sent once by
    // the server); changed, it is another send with a key of its own.
    const keys = () =>
      fetchMock.mock.calls.filter(([url, init]) => url === '/api/care-actions' && init?.method === 'POST').map(([, init]) => new Headers(init?.headers).get('Idempotency-Key'));
    expect(keys()).toHaveLength(1);
    fireEvent.click(within(dialog).getByRole('button', { name: 'Send Care' }));
    await waitFor(() => expect(keys()).toHaveLength(2));
    fireEvent.change(within(dialog).getByRole('textbox'), { target: { value: 'Thinking of you' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Send Care' }));
    await waitFor(() => expect(keys()).toHaveLength(3));
    const [first, again, changed] = keys();
    expect(first).toMatch(/^[0-9a-f]{32}$/);
    expect([again === first, changed === first]).toEqual([true, false]);
  });
});

describe('care received on Home', () => {
  it('lists who sent what, the message and when; newest first', async () => {
    renderWith(
      {
        'GET /api/care-actions/received': {
          status: 200,
          body: [
            { id: 'c2', groupId: 'g1', senderId: 'u3', senderFirstName: 'Cy', kind: 'care_package', message: null, sentAt: new Date().toISOString(), status: 'sent', thankedAt: null },
            { id: 'c1', groupId: 'g1', senderId: 'u1', senderFirstName: 'Ada', kind: 'flowers', message: 'Thinking of you', sentAt: '2026-03-01T09:00:00.000Z', status: 'fulfilled', thankedAt: null },
          ],
        },
      },
      <CareReceived />,
    );
    expect(await screen.findByRole('heading', { name: 'Care You Received' })).toBeInTheDocument();
    const items = within(screen.getByTestId('care-received')).getAllByRole('listitem');
    expect(items.map((i) => i.querySelector('.care-received__title')?.textContent)).toEqual(['Care package from Cy', 'Flowers from Ada']);
    expect(within(items[1]).getByText('Thinking of you')).toBeInTheDocument();
    expect(within(items[0]).getByText('Today')).toBeInTheDocument();
    expect(within(items[0]).getByText('Being ordered')).toBeInTheDocument();
    expect(within(items[1]).getByText('Ordered')).toBeInTheDocument();
  });

  it('is not shown when nothing was received', async () => {
    const fetchMock = renderWith({ 'GET /api/care-actions/received': { status: 200, body: [] } }, <CareReceived />);
    await waitFor(() => expect(fetchMock).toHaveBeenCalled());
    expect(screen.queryByText('Care You Received')).not.toBeInTheDocument();
  });
});

describe('saying thanks for care received, on Home', () => {
  const flowers = { id: 'c1', groupId: 'g1', senderId: 'u1', senderFirstName: 'Ada', kind: 'flowers', message: 'Thinking of you', sentAt: '2026-03-01T09:00:00.000Z', status: 'fulfilled', thankedAt: null };
  const thankedAt = '2026-03-02T10:00:00.000Z';
  const thanks = (fetchMock: jest.Mock) => fetchMock.mock.calls.filter(([url, init]) => url === '/api/care-actions/c1/thank' && init?.method === 'POST');

  it('thanks the sender with one press, then shows "Thanked" instead of the button', async () => {
    const fetchMock = renderWith(
      {
        'GET /api/care-actions/received': { status: 200, body: [flowers, { ...flowers, id: 'c0', senderFirstName: 'Cy', thankedAt }] },
        'POST /api/care-actions/c1/thank': { status: 200, body: { ...flowers, thankedAt } },
      },
      <CareReceived />,
    );
    const items = await within(await screen.findByTestId('care-received')).findAllByRole('listitem');
    // Care already thanked shows it, with no button.
    expect(within(items[1]).getByText('Thanked')).toBeInTheDocument();
    expect(within(items[1]).queryByRole('button')).not.toBeInTheDocument();
    within(items[0]).getByRole('button', { name: 'Say thanks to Ada' }).focus();
    // Twice in one frame (a double click), before the button shows it is busy: one thanks sent.
    fireEvent.click(within(items[0]).getByRole('button', { name: 'Say thanks to Ada' }));
    fireEvent.click(within(items[0]).getByRole('button', { name: 'Say thanks to Ada' }));
    await waitFor(() => expect(within(items[0]).getByText('Thanked')).toBeInTheDocument());
    expect(within(items[0]).queryByRole('button', { name: /Say thanks/ })).not.toBeInTheDocument();
    // The focus moves from the button to "Thanked", not to the top of the page (a keyboard user stays where they were).
    await waitFor(() => expect(document.activeElement).toHaveTextContent('Thanked'));
    expect(items[0]).toContainElement(document.activeElement as HTMLElement);
    expect(thanks(fetchMock)).toHaveLength(1);
    expect(notifier.success).toHaveBeenCalledWith(expect.objectContaining({ title: 'Thanks sent', description: 'Ada will see that you said thanks.' }));
  });

  it('shows "Thanked" when it was thanked already elsewhere (409), and keeps the button with an Error toast on a failure', async () => {
    let thanked = false;
    renderWith(
      {
        'GET /api/care-actions/received': () => Promise.resolve({ status: 200, body: [{ ...flowers, thankedAt: thanked ? thankedAt : null }] }),
        'POST /api/care-actions/c1/thank': () => {
          thanked = true;
          return Promise.resolve({ status: 409, body: { statusCode: 409, code: 'care.already_thanked', message: 'You already said thanks for this care action.' } });
        },
      },
      <CareReceived />,
    );
    fireEvent.click(await screen.findByRole('button', { name: 'Say thanks to Ada' }));
    expect(await screen.findByText('Thanked')).toBeInTheDocument();
    expect(notifier.error).not.toHaveBeenCalled();
  });

  it('says so when thanks cannot be sent', async () => {
    renderWith(
      {
        'GET /api/care-actions/received': { status: 200, body: [flowers] },
        'POST /api/care-actions/c1/thank': { status: 503, body: { statusCode: 503, code: 'store.unavailable', message: 'Unavailable' } },
      },
      <CareReceived />,
    );
    fireEvent.click(await screen.findByRole('button', { name: 'Say thanks to Ada' }));
    await waitFor(() => expect(notifier.error).toHaveBeenCalledWith(expect.objectContaining({ title: 'Error', description: 'Failed to say thanks. Please try again.' })));
    expect(screen.getByRole('button', { name: 'Say thanks to Ada' })).toBeInTheDocument();
  });
});

describe('the Sent page (/care/sent)', () => {
  it('lists the care sent, newest first, with recipient, kind, date, status and "Thanked"', async () => {
    renderWith(
      {
        'GET /api/care-actions/sent': {
          status: 200,
          body: [
            { id: 'c2', groupId: 'g1', recipientId: 'u2', recipientFirstName: 'Bob', kind: 'handwritten_card', message: null, sentAt: new Date().toISOString(), status: 'sent', thankedAt: null },
            { id: 'c1', groupId: 'g1', recipientId: 'u3', recipientFirstName: 'Cy', kind: 'flowers', message: 'Hang in there', sentAt: '2026-03-01T09:00:00.000Z', status: 'fulfilled', thankedAt: '2026-03-02T10:00:00.000Z' },
          ],
        },
      },
      <CareSentPage />,
    );
    expect(await screen.findByRole('heading', { name: 'Care You Sent' })).toBeInTheDocument();
    const items = within(await screen.findByTestId('care-sent')).getAllByRole('listitem');
    expect(items.map((i) => i.querySelector('.care-received__title')?.textContent)).toEqual(['Handwritten card to Bob', 'Flowers to Cy']);
    expect(within(items[0]).getByText('Today')).toBeInTheDocument();
    expect(within(items[0]).queryByText('Thanked')).not.toBeInTheDocument();
    expect(within(items[1]).getByText('Hang in there')).toBeInTheDocument();
    expect(within(items[1]).getByText('Ordered')).toBeInTheDocument();
    expect(within(items[1]).getByText('Thanked')).toBeInTheDocument();
  });

  it('says which care was not sent after all, and why, in words the sender can act on', async () => {
    renderWith(
      {
        'GET /api/care-actions/sent': {
          status: 200,
          body: [
            { id: 'c3', groupId: 'g1', recipientId: 'u4', recipientFirstName: null, kind: 'care_package', message: null, sentAt: '2026-03-03T09:00:00.000Z', status: 'cancelled', thankedAt: null, cancelReason: 'account_deleted' },
            { id: 'c2', groupId: 'g1', recipientId: 'u2', recipientFirstName: 'Bob', kind: 'handwritten_card', message: null, sentAt: '2026-03-02T09:00:00.000Z', status: 'cancelled', thankedAt: null, cancelReason: 'recipient_declined' },
            { id: 'c1', groupId: 'g1', recipientId: 'u3', recipientFirstName: 'Cy', kind: 'flowers', message: null, sentAt: '2026-03-01T09:00:00.000Z', status: 'fulfilled', thankedAt: null, cancelReason: null },
          ],
        },
      },
      <CareSentPage />,
    );
    const items = within(await screen.findByTestId('care-sent')).getAllByRole('listitem');
    expect(within(items[0]).getByText('Not sent')).toBeInTheDocument();
    expect(within(items[0]).getByText('The account it was sent to was deleted before it could be ordered. Nothing was ordered.')).toBeInTheDocument();
    expect(within(items[1]).getByText('Not sent')).toBeInTheDocument();
    expect(within(items[1]).getByText('Bob stopped accepting care actions before it could be ordered. Nothing was ordered.')).toBeInTheDocument();
    expect(within(items[2]).getByText('Ordered')).toBeInTheDocument();
    expect(within(items[2]).queryByText(/Nothing was ordered/)).not.toBeInTheDocument();
  });

  it('shows the thanks that came in since the last visit when the page is opened again', async () => {
    let thankedAt: string | null = null;
    const sent = () => [{ id: 'c1', groupId: 'g1', recipientId: 'u3', recipientFirstName: 'Cy', kind: 'flowers', message: null, sentAt: '2026-03-01T09:00:00.000Z', status: 'fulfilled', thankedAt }];
    installFakeServer({ 'GET /api/care-actions/sent': () => ({ status: 200, body: sent() }) });
    function Visits() {
      const [open, setOpen] = useState(true);
      return (
        <>
          <button onClick={() => setOpen((o) => !o)}>Toggle</button>
          {open && <CareSentPage />}
        </>
      );
    }
    render(
      <QueryClientProvider client={createQueryClient()}>
        <MemoryRouter>
          <Visits />
        </MemoryRouter>
      </QueryClientProvider>,
    );
    expect(await screen.findByText('Ordered')).toBeInTheDocument();
    expect(screen.queryByText('Thanked')).not.toBeInTheDocument();
    // Cy says thanks; the sender goes elsewhere, then back to Care You Sent.
    thankedAt = '2026-03-02T10:00:00.000Z';
    fireEvent.click(screen.getByRole('button', { name: 'Toggle' }));
    fireEvent.click(screen.getByRole('button', { name: 'Toggle' }));
    expect(await screen.findByText('Thanked')).toBeInTheDocument();
  });

  it('says when nothing was sent yet, with the way to the groups', async () => {
    renderWith({ 'GET /api/care-actions/sent': { status: 200, body: [] } }, <CareSentPage />);
    expect(await screen.findByText(/You have not sent any care yet/)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Go to your groups' })).toHaveAttribute('href', '/groups');
  });
});
