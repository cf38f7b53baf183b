import { Elements, PaymentElement, useElements, useStripe } from '@stripe/react-stripe-js';
// The pure entry: Stripe.js is fetched when a Stripe checkout is opened, not when this module loads (the test-card
// checkout of BILLING_SANDBOX never needs it).
import type { Stripe } from '@stripe/stripe-js';
import { loadStripe } from '@stripe/stripe-js/pure';
import { Button } from 'antd';
import { type FormEvent, useState } from 'react';
import { PRIMARY } from '../theme';
import { usePaymentResult } from './api';

const stripes = new Map<string, Promise<Stripe | null>>();

/** Stripe.js from Stripe's host, once per key; a load failure is only logged (SPEC §8). */
function stripeFor(publishableKey: string): Promise<Stripe | null> {
  let promise = stripes.get(publishableKey);
  if (!promise) {
    promise = loadStripe(publishableKey).catch((error: unknown) => {
      console.error('Failed to load Stripe.js', error);
      return null;
    });
    stripes.set(publishableKey, promise);
  }
  return promise;
}

/**
 * A SetupIntent's secret (`seti_…`): a checkout following on from the operator's grant takes the card now and is
 * charged when the grant ends (a trial at Stripe), so there is no payment to confirm, only the card to set up.
 */
export const takesCardOnly = (clientSecret: string) => clientSecret.startsWith('seti_');

function CheckoutForm({ clientSecret, onPaid }: { clientSecret: string; onPaid: () => void }) {
  const stripe = useStripe();
  const elements = useElements();
  const [ready, setReady] = useState(false);
  const [processing, setProcessing] = useState(false);
  const result = usePaymentResult();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!stripe || !elements || !ready || processing) return; // SPEC §5: nothing until the form is ready
    setProcessing(true);
    try {
      const confirmParams = { return_url: window.location.origin };
      const { error } = takesCardOnly(clientSecret) ? await stripe.confirmSetup({ elements, confirmParams }) : await stripe.confirmPayment({ elements, confirmParams });
      if (error) {
        result.failed(error.message ?? 'Your payment could not be processed. Please try again.');
      } else {
        await result.succeeded();
        onPaid();
      }
    } finally {
      setProcessing(false);
    }
  };

  return (
    <form onSubmit={submit} className="stripe-form">
      <PaymentElement onReady={() => setReady(true)} />
      <Button type="primary" htmlType="submit" size="large" block disabled={!stripe || !elements || !ready || processing} loading={processing}>
        {processing ? 'Processing...' : 'Subscribe to Joy Premium'}
      </Button>
    </form>
  );
}

/** Stripe's Payment Element for the subscription's first payment (or, following on from a grant, its card). */
export function StripePaymentForm({ publishableKey, clientSecret, onPaid }: { publishableKey: string; clientSecret: string; onPaid: () => void }) {
  return (
    <Elements
      stripe={stripeFor(publishableKey)}
      options={{ clientSecret, appearance: { theme: 'stripe', variables: { colorPrimary: PRIMARY, borderRadius: '12px' } } }}
    >
      <CheckoutForm clientSecret={clientSecret} onPaid={onPaid} />
    </Elements>
  );
}
