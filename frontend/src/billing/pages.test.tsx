import { QueryClientProvider } from '@tanstack/react-query';
import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { App as AntApp } from 'antd';
import { MemoryRouter } from 'react-router-dom';
import { createQueryClient } from '../api';
import { bindNotifier } from '../lib/toast';
import AccountPage from '../pages/Account';
import SubscribePage from '../pages/Subscribe';
import { installFakeServer, type FakeRoutes } from '../testing/fakeServer';

// antd in jsdom is slow, and role queries walk the whole tree: generous time, text queries where possible.
jest.setTimeout(30_000);
const button = (name: string | RegExp) => screen.getByText(name).closest('button')!;

/** What a browser does when the focused button is disabled: the focus falls to the page. */
function dropFocus() {
  const away = document.createElement('input');
  document.body.append(away);
  away.focus();
  away.remove();
}

const notifier = { error: jest.fn(), success: jest.fn(), info: jest.fn(), warning: jest.fn(), open: jest.fn(), destroy: jest.fn() };

function renderPage(page: React.ReactNode, routes: FakeRoutes) {
  const fetchMock = installFakeServer(routes);
  const client = createQueryClient();
  const invalidate = jest.spyOn(client, 'invalidateQueries');
  render(
    <AntApp>
      <QueryClientProvider client={client}>
        <MemoryRouter>{page}</MemoryRouter>
      </QueryClientProvider>
    </AntApp>,
  );
  return { fetchMock, invalidate };
}

const calls = (fetchMock: jest.Mock, key: string) => fetchMock.mock.calls.filter(([url, init]) => `${(init?.method ?? 'GET').toUpperCase()} ${url}` === key);

beforeEach(() => {
  jest.clearAllMocks();
  bindNotifier(notifier);
});

describe('Subscribe page', () => {
  const sandbox = { 'GET /api/billing/config': { status: 200, body: { provider: 'sandbox' } } };

  it('shows a spinner, then the offer and the labelled test-mode form once a client secret arrives', async () => {
    const { fetchMock } = renderPage(<SubscribePage />, { ...sandbox, 'POST /api/create-subscription': { status: 200, body: { clientSecret: 'sandbox_s' } } });
    expect(screen.getByText('Loading...')).toBeInTheDocument();
    await screen.findByText('Start Your Premium Journey');
    expect(screen.getByText('Joy Premium').tagName).toBe('H1');
    expect(screen.getByText('Unlock the full power of happiness tracking and care actions')).toBeInTheDocument();
    for (const text of ['Care Actions', 'Unlimited Groups', 'Advanced Analytics', '$4.99', 'per month', 'Cancel anytime', 'Start Your Premium Journey', 'Enter your payment details below to unlock premium features']) {
      expect(screen.getByText(text)).toBeInTheDocument();
    }
    // A static note, not an alert announced at every page load.
    expect(screen.getByText('Test mode — no money moves.').closest('.ant-alert')).toHaveAttribute('role', 'note');
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(screen.getByLabelText('Card number')).toBeInTheDocument();
    expect(screen.getByLabelText('Expiry date')).toBeInTheDocument();
    expect(screen.getByLabelText('CVC')).toBeInTheDocument();
    expect(button('Subscribe to Joy Premium')).toBeEnabled();
    expect(calls(fetchMock, 'POST /api/create-subscription')).toHaveLength(1);
    expect(calls(fetchMock, 'POST /api/create-subscription')[0][1]).toMatchObject({ body: undefined });
  });

  it('says payments are not set up on an install without Stripe or the sandbox, and opens no checkout', async () => {
    const { fetchMock } = renderPage(<SubscribePage />, { 'GET /api/billing/config': { status: 200, body: { provider: 'none' } } });
    await screen.findByText('Payments are not set up on this install');
    expect(screen.getByText(/Ask the person who runs this Joy/)).toBeInTheDocument();
    expect(screen.queryByLabelText('Card number')).not.toBeInTheDocument();
    expect(calls(fetchMock, 'POST /api/create-subscription')).toHaveLength(0);
  });

  it('tells a person whose Premium is paused what to do, not that they are subscribed', async () => {
    renderPage(<SubscribePage />, {
      ...sandbox,
      'POST /api/create-subscription': { status: 200, body: {} },
      'GET /api/subscription-status': { status: 200, body: { isPremium: false, status: 'lapsed', currentPeriodEnd: '2027-01-10T08:00:00.000Z', cancelAtPeriodEnd: false } },
    });
    expect(await screen.findByText('Joy Premium is paused')).toBeInTheDocument();
    expect(screen.getByText(/Update your card in the billing portal to continue/)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Go to Your Account' })).toHaveAttribute('href', '/account');
    expect(screen.queryByText('You have Joy Premium')).not.toBeInTheDocument();
    expect(notifier.info).not.toHaveBeenCalledWith(expect.objectContaining({ title: 'Already Subscribed' }));
  });

  it('says "Already Subscribed" and shows the plan as it is (no endless spinner) when no secret comes back', async () => {
    renderPage(<SubscribePage />, {
      ...sandbox,
      'POST /api/create-subscription': { status: 200, body: {} },
      'GET /api/subscription-status': { status: 200, body: { isPremium: true, status: 'active', currentPeriodEnd: '2026-12-20T08:00:00.000Z', cancelAtPeriodEnd: false } },
    });
    await waitFor(() => expect(notifier.info).toHaveBeenCalledWith(expect.objectContaining({ title: 'Already Subscribed', description: 'You already have an active Joy Premium subscription!' })));
    expect(await screen.findByText('You have Joy Premium')).toBeInTheDocument();
    expect(screen.getByText(/Renews on/)).toBeInTheDocument();
    expect(screen.queryByText('Loading...')).not.toBeInTheDocument();
    expect(screen.queryByText('Start Your Premium Journey')).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Resume Joy Premium' })).not.toBeInTheDocument();
  });

  it('offers Resume to a canceled plan on /subscribe, and shows it renewing again', async () => {
    let canceled = true;
    const status = () => ({ isPremium: true, status: canceled ? 'canceling' : 'active', currentPeriodEnd: '2026-12-20T08:00:00.000Z', cancelAtPeriodEnd: canceled });
    const { fetchMock } = renderPage(<SubscribePage />, {
      ...sandbox,
      'POST /api/create-subscription': { status: 200, body: {} },
      'GET /api/subscription-status': () => ({ status: 200, body: status() }),
      'POST /api/subscription/resume': () => ((canceled = false), { status: 200, body: status() }),
    });
    expect(await screen.findByText('Your Joy Premium is canceled')).toBeInTheDocument();
    fireEvent.click(screen.getByRole('button', { name: 'Resume Joy Premium' }));
    expect(await screen.findByText('You have Joy Premium')).toBeInTheDocument();
    expect(calls(fetchMock, 'POST /api/subscription/resume')).toHaveLength(1);
    expect(notifier.success).toHaveBeenCalledWith(expect.objectContaining({ title: 'Joy Premium resumed' }));
  });

  it("says how a payment follows on from the operator's grant, above the payment form", async () => {
    renderPage(<SubscribePage />, {
      ...sandbox,
      'POST /api/create-subscription': { status: 200, body: { clientSecret: 'sandbox_s' } },
      'GET /api/subscription-status': { status: 200, body: { isPremium: true, status: 'canceling', currentPeriodEnd: '2026-12-20T08:00:00.000Z', cancelAtPeriodEnd: true, granted: true } },
    });
    expect(await screen.findByText(/^Joy Premium, given by the person who runs this install, until Dec 20, 2026\./)).toBeInTheDocument();
    expect(screen.getByText(/you pay \$4\.99 per month from Dec 20, 2026 on, nothing for the days given/)).toBeInTheDocument();
    // Static, there from the start: a note, not an alert announced at load.
    expect(screen.getByText(/you pay \$4\.99 per month/).closest('.ant-alert')).toHaveAttribute('role', 'note');
    expect(screen.getByLabelText('Card number')).toBeInTheDocument();
  });

  it("shows the operator's grant as given, not as a canceled plan to resume, when no checkout opens during it", async () => {
    renderPage(<SubscribePage />, {
      ...sandbox,
      'POST /api/create-subscription': { status: 200, body: {} },
      'GET /api/subscription-status': { status: 200, body: { isPremium: true, status: 'canceling', currentPeriodEnd: '2029-12-20T08:00:00.000Z', cancelAtPeriodEnd: true, granted: true } },
    });
    expect(await screen.findByText('Joy Premium is given to you')).toBeInTheDocument();
    expect(screen.getByText(/given by the person who runs this install, until Dec 20, 2029/)).toBeInTheDocument();
    expect(screen.queryByText('Your Joy Premium is canceled')).not.toBeInTheDocument();
    expect(screen.queryByText('Resume Joy Premium')).not.toBeInTheDocument();
    expect(notifier.info).not.toHaveBeenCalledWith(expect.objectContaining({ title: 'Already Subscribed' }));
  });

  it('says "Error" and logs when the subscription cannot be created', async () => {
    const log = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    renderPage(<SubscribePage />, { ...sandbox, 'POST /api/create-subscription': { status: 500, body: { statusCode: 500, code: 'internal', message: 'Internal server error' } } });
    await waitFor(() => expect(notifier.error).toHaveBeenCalledWith(expect.objectContaining({ title: 'Error', description: 'Failed to create subscription. Please try again.' })));
    expect(log).toHaveBeenCalled();
    log.mockRestore();
  });

  it('pays with the test card: "Processing...", then the welcome toast and a fresh plan', async () => {
    let answer!: (value: { status: number; body: unknown }) => void;
    const { fetchMock, invalidate } = renderPage(<SubscribePage />, {
      ...sandbox,
      'POST /api/create-subscription': { status: 200, body: { clientSecret: 'sandbox_s' } },
      'POST /api/billing/sandbox/confirm': () => new Promise((resolve) => (answer = resolve)),
    });
    fireEvent.change(await screen.findByLabelText('Card number'), { target: { value: '4242424242424242' } });
    expect(screen.getByLabelText('Card number')).toHaveValue('4242 4242 4242 4242');
    // As a keyboard does: Enter on the focused button.
    act(() => button('Subscribe to Joy Premium').focus());
    fireEvent.click(button('Subscribe to Joy Premium'));
    await screen.findByText('Processing...');
    expect(button('Processing...')).toBeDisabled();
    answer({ status: 200, body: { isPremium: true, status: 'active', currentPeriodEnd: '2026-12-20T08:00:00.000Z', cancelAtPeriodEnd: false } });
    await waitFor(() => expect(notifier.success).toHaveBeenCalledWith(expect.objectContaining({
      title: 'Welcome to Joy Premium!', description: 'Your subscription is now active. Enjoy Care Actions and premium features!',
    })));
    expect(invalidate).toHaveBeenCalledWith({ queryKey: ['/api/subscription-status'] });
    expect(JSON.parse(calls(fetchMock, 'POST /api/billing/sandbox/confirm')[0][1].body)).toEqual({ clientSecret: 'sandbox_s', cardNumber: '4242 4242 4242 4242' });
    // The form (and the focused button) gave way to the news: the focus is on it, not on the page.
    await screen.findByText('Joy Premium is active.');
    await waitFor(() => expect(document.activeElement).toHaveTextContent(/^Joy Premium is active\.$/));
  });

  it('shows "Payment Failed" with the provider’s message for a declined card, and is ready again', async () => {
    renderPage(<SubscribePage />, {
      ...sandbox,
      'POST /api/create-subscription': { status: 200, body: { clientSecret: 'sandbox_s' } },
      'POST /api/billing/sandbox/confirm': {
        status: 400,
        body: { statusCode: 400, code: 'billing.card_refused', message: 'Your card was declined.', errors: [{ field: 'cardNumber', message: 'Your card was declined.' }] },
      },
    });
    const cardNumber = await screen.findByLabelText('Card number');
    fireEvent.change(cardNumber, { target: { value: '4000000000000002' } });
    act(() => button('Subscribe to Joy Premium').focus());
    fireEvent.click(button('Subscribe to Joy Premium'));
    await waitFor(() => expect(notifier.error).toHaveBeenCalledWith(expect.objectContaining({ title: 'Payment Failed', description: 'Your card was declined.' })));
    await screen.findByText('Subscribe to Joy Premium');
    expect(button('Subscribe to Joy Premium')).toBeEnabled();
    // Told on the card number too (the toast goes after a few seconds), which has the focus.
    await waitFor(() => expect(cardNumber).toHaveFocus());
    expect(cardNumber).toHaveAttribute('aria-invalid', 'true');
    expect(cardNumber).toHaveAccessibleDescription('Your card was declined.');
  });

  it.each([
    ['Your card number is incomplete.', 'cardNumber', 'Card number'],
    ["Your card's expiration date is incomplete.", 'expiry', 'Expiry date'],
    ["Your card's security code is incomplete.", 'cvc', 'CVC'],
  ])('says "%s" (the server names %s) under the field at fault, marked invalid, and puts the focus there', async (message, named, field) => {
    renderPage(<SubscribePage />, {
      ...sandbox,
      'POST /api/create-subscription': { status: 200, body: { clientSecret: 'sandbox_s' } },
      'POST /api/billing/sandbox/confirm': { status: 400, body: { statusCode: 400, code: 'billing.card_refused', message, errors: [{ field: named, message }] } },
    });
    await screen.findByLabelText('Card number');
    act(() => button('Subscribe to Joy Premium').focus());
    fireEvent.click(button('Subscribe to Joy Premium'));
    await waitFor(() => expect(notifier.error).toHaveBeenCalledWith(expect.objectContaining({ title: 'Payment Failed', description: message })));
    const input = screen.getByLabelText(field);
    await waitFor(() => expect(input).toHaveFocus());
    expect(input).toHaveAttribute('aria-invalid', 'true');
    expect(input).toHaveAccessibleDescription(message);
    expect(screen.getByText(message)).toBeInTheDocument();
    for (const other of ['Card number', 'Expiry date', 'CVC'].filter((f) => f !== field)) {
      expect(screen.getByLabelText(other)).not.toHaveAttribute('aria-invalid');
      expect(screen.getByLabelText(other)).not.toHaveAttribute('aria-describedby');
    }
    // Editing the field takes its error away.
    fireEvent.change(input, { target: { value: '1' } });
    expect(input).not.toHaveAttribute('aria-invalid');
    expect(screen.queryByText(message)).not.toBeInTheDocument();
  });

  it('gives the focus back to the button after a failure that is not about the card', async () => {
    let answer!: (value: { status: number; body: unknown }) => void;
    renderPage(<SubscribePage />, {
      ...sandbox,
      'POST /api/create-subscription': { status: 200, body: { clientSecret: 'sandbox_s' } },
      'POST /api/billing/sandbox/confirm': () => new Promise((resolve) => (answer = resolve)),
    });
    await screen.findByLabelText('Card number');
    act(() => button('Subscribe to Joy Premium').focus());
    fireEvent.click(button('Subscribe to Joy Premium'));
    await screen.findByText('Processing...');
    // A browser drops the focus of the disabled button to the page (jsdom keeps it there).
    act(dropFocus);
    answer({ status: 500, body: { statusCode: 500, code: 'internal', message: 'Internal server error' } });
    await waitFor(() => expect(notifier.error).toHaveBeenCalledWith(expect.objectContaining({ title: 'Payment Failed' })));
    await waitFor(() => expect(button('Subscribe to Joy Premium')).toHaveFocus());
    expect(screen.getByLabelText('Card number')).not.toHaveAttribute('aria-invalid');
  });
});

describe('Account page', () => {
  const end = '2026-12-20T08:00:00.000Z';

  it('offers the Upgrade on the free plan, and no Cancel', async () => {
    renderPage(<AccountPage />, { 'GET /api/subscription-status': { status: 200, body: { isPremium: false, status: 'free', currentPeriodEnd: null, cancelAtPeriodEnd: false } } });
    expect(await screen.findByTestId('plan-name')).toHaveTextContent('Free');
    expect(screen.getByText('Upgrade to Joy Premium').closest('a')).toHaveAttribute('href', '/subscribe');
    expect(screen.queryByText('Cancel Subscription')).not.toBeInTheDocument();
  });

  it('cancels after a confirmation that explains the period end', async () => {
    const { fetchMock } = renderPage(<AccountPage />, {
      'GET /api/subscription-status': { status: 200, body: { isPremium: true, status: 'active', currentPeriodEnd: end, cancelAtPeriodEnd: false } },
      'POST /api/subscription/cancel': { status: 200, body: { isPremium: true, status: 'canceling', currentPeriodEnd: end, cancelAtPeriodEnd: true } },
    });
    expect(await screen.findByTestId('plan-name')).toHaveTextContent('Joy Premium');
    expect(screen.getByTestId('plan-date')).toHaveTextContent(/^Renews on /);
    fireEvent.click(button('Cancel Subscription'));
    expect((await screen.findAllByText('Cancel Joy Premium?')).length).toBeGreaterThan(0);
    expect(screen.getByText(/until the end of your current billing period/)).toBeInTheDocument();
    expect(calls(fetchMock, 'POST /api/subscription/cancel')).toHaveLength(0);
    const dialogButtons = screen.getAllByText('Cancel Subscription');
    fireEvent.click(dialogButtons[dialogButtons.length - 1].closest('button')!);
    await waitFor(() => expect(calls(fetchMock, 'POST /api/subscription/cancel')).toHaveLength(1));
    await waitFor(() => expect(notifier.success).toHaveBeenCalledWith(expect.objectContaining({ title: 'Subscription canceled' })));
  });

  it('offers Resume for a canceled plan, and shows it renewing again', async () => {
    let canceled = true;
    const status = () => ({ isPremium: true, status: canceled ? 'canceling' : 'active', currentPeriodEnd: end, cancelAtPeriodEnd: canceled });
    const { fetchMock } = renderPage(<AccountPage />, {
      'GET /api/subscription-status': () => ({ status: 200, body: status() }),
      'POST /api/subscription/resume': () => ((canceled = false), { status: 200, body: status() }),
    });
    expect(await screen.findByTestId('plan-date')).toHaveTextContent(/^Ends on /);
    expect(screen.queryByText('Cancel Subscription')).not.toBeInTheDocument();
    fireEvent.click(button('Resume Joy Premium'));
    await waitFor(() => expect(calls(fetchMock, 'POST /api/subscription/resume')).toHaveLength(1));
    await waitFor(() => expect(screen.getByTestId('plan-date')).toHaveTextContent(/^Renews on /));
    expect(screen.getByText('Cancel Subscription')).toBeInTheDocument();
  });

  it('opens the Stripe Customer Portal from "Manage payment method and invoices" on a Stripe install', async () => {
    const { fetchMock } = renderPage(<AccountPage />, {
      'GET /api/subscription-status': { status: 200, body: { isPremium: true, status: 'active', currentPeriodEnd: end, cancelAtPeriodEnd: false } },
      'GET /api/billing/config': { status: 200, body: { provider: 'stripe', publishableKey: 'pk_test_joy' } },
      'POST /api/billing/portal': { status: 409, body: { statusCode: 409, code: 'billing.portal_unavailable', message: 'There are no payment methods or invoices yet: subscribe to Joy Premium first.' } },
    });
    fireEvent.click(await screen.findByText('Manage payment method and invoices'));
    await waitFor(() => expect(calls(fetchMock, 'POST /api/billing/portal')).toHaveLength(1));
    await waitFor(() =>
      expect(notifier.error).toHaveBeenCalledWith(expect.objectContaining({ description: expect.stringContaining('There are no payment methods or invoices yet') })),
    );
  });

  it('says why Joy Premium is paused and what to do, with the billing portal as the way on; no Upgrade, no Cancel', async () => {
    const { fetchMock } = renderPage(<AccountPage />, {
      'GET /api/subscription-status': { status: 200, body: { isPremium: false, status: 'lapsed', currentPeriodEnd: '2027-01-10T08:00:00.000Z', cancelAtPeriodEnd: false } },
      'GET /api/billing/config': { status: 200, body: { provider: 'stripe', publishableKey: 'pk_test_joy' } },
      'POST /api/billing/portal': () => new Promise(() => undefined), // off to Stripe: the page stays as it is
    });
    const alert = (await screen.findByText('Joy Premium is paused')).closest('[role="alert"]')!;
    expect(alert).toHaveTextContent(
      'Your last payment did not go through, so Joy Premium is paused. Update your card in the billing portal to continue: Joy Premium comes back as soon as the payment goes through.',
    );
    expect(alert).toHaveTextContent('Until then the free plan applies: up to 3 groups and no Care Actions.');
    expect(screen.getByTestId('plan-name')).toHaveTextContent('Joy Premium');
    expect(screen.getByText('Paused').closest('.ant-tag')).toHaveClass('ant-tag-red');
    expect(screen.getByTestId('plan-date')).toHaveTextContent('Paused since Jan 10, 2027');
    expect(screen.queryByText('Upgrade to Joy Premium')).not.toBeInTheDocument();
    expect(screen.queryByText('Cancel Subscription')).not.toBeInTheDocument();
    expect(screen.queryByText('Resume Joy Premium')).not.toBeInTheDocument();
    fireEvent.click(await screen.findByText('Update your card in the billing portal'));
    await waitFor(() => expect(calls(fetchMock, 'POST /api/billing/portal')).toHaveLength(1));
  });

  const grant = { isPremium: true, status: 'canceling', currentPeriodEnd: end, cancelAtPeriodEnd: true, granted: true };

  it("shows the operator's grant as given until its date, with no Resume and no Cancel, and a way to keep Premium after it", async () => {
    renderPage(<AccountPage />, {
      'GET /api/subscription-status': { status: 200, body: grant },
      'GET /api/billing/config': { status: 200, body: { provider: 'stripe', publishableKey: 'pk_test_joy' } },
    });
    expect(await screen.findByTestId('plan-date')).toHaveTextContent('Given until Dec 20, 2026');
    expect(screen.getByTestId('plan-name')).toHaveTextContent('Joy Premium');
    expect(screen.getByText('Joy Premium, given by the person who runs this install, until Dec 20, 2026. Nothing is charged for it, and it ends by itself.')).toBeInTheDocument();
    expect(screen.getByText('Given').closest('.ant-tag')).toHaveClass('ant-tag-green');
    expect((await screen.findByText('Keep Joy Premium after Dec 20, 2026')).closest('a')).toHaveAttribute('href', '/subscribe');
    for (const absent of ['Canceled', 'Resume Joy Premium', 'Cancel Subscription', 'Manage payment method and invoices', /Resume it/]) {
      expect(screen.queryByText(absent)).not.toBeInTheDocument();
    }
  });

  it('offers no way to pay after a grant on an install without payments', async () => {
    renderPage(<AccountPage />, {
      'GET /api/subscription-status': { status: 200, body: grant },
      'GET /api/billing/config': { status: 200, body: { provider: 'none' } },
    });
    expect(await screen.findByTestId('plan-date')).toHaveTextContent('Given until Dec 20, 2026');
    await waitFor(() => expect(screen.queryByText(/Keep Joy Premium after/)).not.toBeInTheDocument());
    expect(screen.queryByText(/subscribe before then/)).not.toBeInTheDocument();
  });

  it('says Joy Premium has ended when Stripe had ended it before Cancel (not "stays active")', async () => {
    const ended = { isPremium: false, status: 'ended', currentPeriodEnd: '2026-11-20T08:00:00.000Z', cancelAtPeriodEnd: false };
    renderPage(<AccountPage />, {
      'GET /api/subscription-status': { status: 200, body: { isPremium: true, status: 'active', currentPeriodEnd: end, cancelAtPeriodEnd: false } },
      'POST /api/subscription/cancel': { status: 200, body: ended },
    });
    fireEvent.click(await screen.findByText('Cancel Subscription'));
    const dialogButtons = await screen.findAllByText('Cancel Subscription');
    fireEvent.click(dialogButtons[dialogButtons.length - 1].closest('button')!);
    await waitFor(() => expect(notifier.info).toHaveBeenCalledWith(expect.objectContaining({ title: 'Joy Premium has ended' })));
    expect(notifier.success).not.toHaveBeenCalledWith(expect.objectContaining({ title: 'Subscription canceled' }));
  });

  it('says Joy Premium has ended when Stripe had ended it before Resume (not "resumed")', async () => {
    renderPage(<AccountPage />, {
      'GET /api/subscription-status': { status: 200, body: { isPremium: true, status: 'canceling', currentPeriodEnd: end, cancelAtPeriodEnd: true } },
      'POST /api/subscription/resume': { status: 200, body: { isPremium: false, status: 'ended', currentPeriodEnd: end, cancelAtPeriodEnd: false } },
    });
    fireEvent.click(await screen.findByText('Resume Joy Premium'));
    await waitFor(() => expect(notifier.info).toHaveBeenCalledWith(expect.objectContaining({ title: 'Joy Premium has ended', description: expect.stringContaining('It ended on Dec 20, 2026') })));
    expect(notifier.success).not.toHaveBeenCalledWith(expect.objectContaining({ title: 'Joy Premium resumed' }));
  });

  it('has no payment settings button on the sandbox', async () => {
    renderPage(<AccountPage />, {
      'GET /api/subscription-status': { status: 200, body: { isPremium: true, status: 'active', currentPeriodEnd: end, cancelAtPeriodEnd: false } },
      'GET /api/billing/config': { status: 200, body: { provider: 'sandbox' } },
    });
    expect(await screen.findByText('Cancel Subscription')).toBeInTheDocument();
    expect(screen.queryByText('Manage payment method and invoices')).not.toBeInTheDocument();
  });
});
