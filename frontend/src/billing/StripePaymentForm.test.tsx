import { QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { createQueryClient } from '../api';
import { bindNotifier } from '../lib/toast';
import { StripePaymentForm } from './StripePaymentForm';

// Stripe.js itself is Stripe's: what is under test is which of its confirmations the form asks for.
const stripe = { confirmPayment: jest.fn(async () => ({})), confirmSetup: jest.fn(async () => ({})) };
jest.mock('@stripe/stripe-js/pure', () => ({ loadStripe: jest.fn(async () => stripe) }));
jest.mock('@stripe/react-stripe-js', () => ({
  Elements: ({ children }: { children: React.ReactNode }) => children,
  PaymentElement: ({ onReady }: { onReady: () => void }) => {
    queueMicrotask(onReady);
    return <div>Payment Element</div>;
  },
  useStripe: () => stripe,
  useElements: () => ({}),
}));

const notifier = { error: jest.fn(), success: jest.fn(), info: jest.fn(), warning: jest.fn(), open: jest.fn(), destroy: jest.fn() };

async function pay(clientSecret: string) {
  global.fetch = jest.fn(async () => ({ ok: true, status: 200, text: async () => '{}', json: async () => ({}), headers: { get: () => null } }) as unknown as Response);
  const onPaid = jest.fn();
  render(
    <QueryClientProvider client={createQueryClient()}>
      <StripePaymentForm publishableKey="pk_test_joy" clientSecret={clientSecret} onPaid={onPaid} />
    </QueryClientProvider>,
  );
  const button = (await screen.findByText('Subscribe to Joy Premium')).closest('button')!;
  await waitFor(() => expect(button).toBeEnabled());
  fireEvent.click(button);
  await waitFor(() => expect(onPaid).toHaveBeenCalled());
}

beforeEach(() => {
  jest.clearAllMocks();
  bindNotifier(notifier);
});

describe('the Stripe payment form', () => {
  it('confirms the first payment of a subscription', async () => {
    await pay('pi_sub_1_secret_x');
    expect(stripe.confirmPayment).toHaveBeenCalledTimes(1);
    expect(stripe.confirmSetup).not.toHaveBeenCalled();
  });

  it("only sets the card up for a subscription following on from the operator's grant (charged when the grant ends)", async () => {
    await pay('seti_sub_2_secret_x');
    expect(stripe.confirmSetup).toHaveBeenCalledTimes(1);
    expect(stripe.confirmSetup).toHaveBeenCalledWith(expect.objectContaining({ confirmParams: { return_url: window.location.origin } }));
    expect(stripe.confirmPayment).not.toHaveBeenCalled();
    expect(notifier.success).toHaveBeenCalledWith(expect.objectContaining({ title: 'Welcome to Joy Premium!' }));
  });
});
