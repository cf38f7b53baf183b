import type { BillingClientConfig, CreateSubscriptionResponse, SubscriptionStatusView } from '@joy/domain';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiJson, isUnauthorizedError } from '../api';
import { TOASTS, paymentFailedToast, toast } from '../lib/toast';
import { formatPlanDate, providerMessage } from './logic';

export const SUBSCRIPTION_STATUS_KEY = ['/api/subscription-status'] as const;
export const BILLING_CONFIG_KEY = ['/api/billing/config'] as const;

/** The user's plan (same cache entry as the navigation's Upgrade link). */
export function usePlan() {
  return useQuery<SubscriptionStatusView>({ queryKey: SUBSCRIPTION_STATUS_KEY });
}

export function useBillingConfig() {
  return useQuery<BillingClientConfig>({ queryKey: BILLING_CONFIG_KEY });
}

/** POST /api/create-subscription; "Error" toast on failure (a 401 is handled globally). */
export function useCreateSubscription() {
  return useMutation<CreateSubscriptionResponse, Error, void>({
    mutationFn: () => apiJson<CreateSubscriptionResponse>('POST', '/api/create-subscription'),
    onError: (error) => {
      if (isUnauthorizedError(error)) return;
      console.error('Failed to create subscription', error);
      toast(TOASTS.subscriptionFailed);
    },
  });
}

/** Refreshes the plan everywhere (the Upgrade link disappears once premium). */
export function useRefreshPlan() {
  const client = useQueryClient();
  return () => client.invalidateQueries({ queryKey: SUBSCRIPTION_STATUS_KEY });
}

/** Shows the payment result toast of SPEC §8 and refreshes the plan on success. */
export function usePaymentResult() {
  const refresh = useRefreshPlan();
  return {
    async succeeded() {
      toast(TOASTS.paymentSucceeded);
      await refresh();
    },
    failed(message: string) {
      toast(paymentFailedToast(message));
    },
  };
}

export interface SandboxCard {
  cardNumber: string;
  expiry: string;
  cvc: string;
}

/** POST /api/billing/sandbox/confirm with a test card; the failure's message is the provider's. */
export function useConfirmSandboxPayment(clientSecret: string) {
  const result = usePaymentResult();
  return useMutation<SubscriptionStatusView, Error, SandboxCard>({
    mutationFn: (card) =>
      apiJson<SubscriptionStatusView>('POST', '/api/billing/sandbox/confirm', {
        clientSecret,
        cardNumber: card.cardNumber,
        ...(card.expiry ? { expiry: card.expiry } : {}),
        ...(card.cvc ? { cvc: card.cvc } : {}),
      }),
    onSuccess: () => result.succeeded(),
    onError: (error) => {
      if (isUnauthorizedError(error)) return;
      result.failed(providerMessage(error));
    },
  });
}

/** Stripe had ended the subscription before its news reached Joy: the answer to Cancel or Resume is that end. */
const endedAlready = (date: string) => ({
  title: 'Joy Premium has ended',
  description: `${date ? `It ended on ${date}` : 'It has ended'}, so there is nothing to cancel or resume. You can subscribe again whenever you like.`,
});

/** POST /api/subscription/cancel: ends Joy Premium at the end of the paid period. */
export function useCancelSubscription() {
  const client = useQueryClient();
  return useMutation<SubscriptionStatusView, Error, void>({
    mutationFn: () => apiJson<SubscriptionStatusView>('POST', '/api/subscription/cancel'),
    onSuccess: (status) => {
      client.setQueryData(SUBSCRIPTION_STATUS_KEY, status);
      const date = formatPlanDate(status.currentPeriodEnd);
      if (!status.isPremium) {
        toast(endedAlready(date));
      } else {
        toast({
          title: 'Subscription canceled',
          description: date ? `Joy Premium stays active until ${date}.` : 'Joy Premium stays active until the end of the billing period.',
          variant: 'success',
        });
      }
      return client.invalidateQueries({ queryKey: SUBSCRIPTION_STATUS_KEY });
    },
    onError: (error) => {
      if (isUnauthorizedError(error)) return;
      toast({ title: 'Error', description: `Failed to cancel your subscription. ${providerMessage(error)}`, variant: 'destructive' });
    },
  });
}

/** POST /api/subscription/resume: takes back a cancellation before the paid period ends (the plan renews again). */
export function useResumeSubscription() {
  const client = useQueryClient();
  return useMutation<SubscriptionStatusView, Error, void>({
    mutationFn: () => apiJson<SubscriptionStatusView>('POST', '/api/subscription/resume'),
    onSuccess: (status) => {
      client.setQueryData(SUBSCRIPTION_STATUS_KEY, status);
      const date = formatPlanDate(status.currentPeriodEnd);
      if (!status.isPremium) toast(endedAlready(date));
      else toast({ title: 'Joy Premium resumed', description: date ? `It renews on ${date}.` : 'It renews as before.', variant: 'success' });
      return client.invalidateQueries({ queryKey: SUBSCRIPTION_STATUS_KEY });
    },
    onError: (error) => {
      if (isUnauthorizedError(error)) return;
      toast({ title: 'Error', description: `Failed to resume your subscription. ${providerMessage(error)}`, variant: 'destructive' });
    },
  });
}

/**
 * POST /api/billing/portal, then off to Stripe's Customer Portal (payment method, invoices), which brings the
 * person back to /account. An "Error" toast with the server's reason otherwise.
 */
export function useOpenCustomerPortal(go: (url: string) => void = (url) => window.location.assign(url)) {
  return useMutation<{ url: string }, Error, void>({
    mutationFn: () => apiJson<{ url: string }>('POST', '/api/billing/portal'),
    onSuccess: ({ url }) => go(url),
    onError: (error) => {
      if (isUnauthorizedError(error)) return;
      toast({ title: 'Error', description: `Failed to open your payment settings. ${providerMessage(error)}`, variant: 'destructive' });
    },
  });
}
