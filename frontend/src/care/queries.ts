import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiJson, isUnauthorizedError } from '../api';
import { toast } from '../lib/toast';
import type { CareActionView, CareSuggestionView, ReceivedCareActionView, SendCareRequest, SentCareActionView, SubscriptionStatusView } from '@joy/domain';
import { parseApiError } from '../lib/apiError';
import { careFailedToast, THANKS_FAILED_TOAST, thanksSentToast } from './logic';

/** The same cache entry as the navigation's Upgrade link and the billing pages. */
export const SUBSCRIPTION_STATUS_KEY = ['/api/subscription-status'] as const;
export const CARE_RECEIVED_KEY = ['/api/care-actions/received'] as const;
export const CARE_SENT_KEY = ['/api/care-actions/sent'] as const;
/** Under the group's key, so refreshing the group (selecting it) refreshes its suggestions too. */
export const careSuggestionsKey = (groupId: string) => ['/api/groups', groupId, 'care-suggestions'] as const;

export function useIsPremium() {
  const status = useQuery<SubscriptionStatusView>({ queryKey: SUBSCRIPTION_STATUS_KEY });
  return { isPremium: status.data?.isPremium === true, isLoading: status.isLoading };
}

export function useCareSuggestions(groupId: string) {
  return useQuery<CareSuggestionView[]>({ queryKey: careSuggestionsKey(groupId) });
}

/** Care received, newest first. Looked at again when Home opens after a minute (others send it). */
export function useReceivedCare() {
  return useQuery<ReceivedCareActionView[]>({ queryKey: CARE_RECEIVED_KEY, staleTime: 60_000 });
}

/**
 * POST /api/care-actions, with the send's Idempotency-Key: sent again after a lost answer, it sends nothing twice.
 * Failure: the spec's "Error" toast (a 401 is handled globally).
 */
export function useSendCare() {
  const client = useQueryClient();
  return useMutation<CareActionView, Error, { body: SendCareRequest; idempotencyKey: string }>({
    mutationFn: ({ body, idempotencyKey }) => apiJson<CareActionView>('POST', '/api/care-actions', body, { 'Idempotency-Key': idempotencyKey }),
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: CARE_SENT_KEY });
    },
    onError: (error) => {
      if (isUnauthorizedError(error)) return;
      toast(careFailedToast(error));
    },
  });
}

/** Care sent, newest first, with "Thanked" once the recipient said thanks: read again at each visit (others change it). */
export function useSentCare({ enabled = true }: { enabled?: boolean } = {}) {
  return useQuery<SentCareActionView[]>({ queryKey: CARE_SENT_KEY, staleTime: 0, enabled });
}

/**
 * POST /api/care-actions/:id/thank. The answer (or, for a 409, the list read again: thanked from another device)
 * shows the care action as thanked.
 */
export function useThankCare() {
  const client = useQueryClient();
  const replace = (updated: ReceivedCareActionView) =>
    client.setQueryData<ReceivedCareActionView[]>(CARE_RECEIVED_KEY, (list) => list?.map((c) => (c.id === updated.id ? updated : c)));
  return useMutation<ReceivedCareActionView, Error, ReceivedCareActionView>({
    mutationFn: (care) => apiJson<ReceivedCareActionView>('POST', `/api/care-actions/${encodeURIComponent(care.id)}/thank`, {}),
    onSuccess: (updated, care) => {
      replace(updated);
      toast(thanksSentToast(care));
    },
    onError: async (error) => {
      if (isUnauthorizedError(error)) return;
      if (parseApiError(error).code === 'care.already_thanked') {
        await client.invalidateQueries({ queryKey: CARE_RECEIVED_KEY });
        return;
      }
      toast(THANKS_FAILED_TOAST);
    },
  });
}
