import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiJson, isUnauthorizedError } from './api';
import { TOASTS, toast } from './lib/toast';
import type { GroupView, RatingView, SubmitRatingRequest } from '@joy/domain';

export const RATINGS_KEY = ['/api/joy-ratings'] as const;
export const LATEST_RATING_KEY = ['/api/joy-ratings/latest'] as const;
export const GROUPS_KEY = ['/api/groups'] as const;

/** The user's ratings, newest first. */
export function useRatings() {
  return useQuery<RatingView[]>({ queryKey: RATINGS_KEY });
}

/** The user's latest rating, or null when there is none. */
export function useLatestRating() {
  return useQuery<RatingView | null>({ queryKey: LATEST_RATING_KEY });
}

/** The groups the user belongs to. */
export function useGroups() {
  return useQuery<GroupView[]>({ queryKey: GROUPS_KEY });
}

/**
 * Saves a rating. Success: "Rating Saved!" and the ratings lists are refreshed. Failure: "Error" (a 401 is
 * handled globally: "Unauthorized" and the way to /api/login).
 */
export function useSubmitRating(options: { onSaved?: (rating: RatingView) => void } = {}) {
  const client = useQueryClient();
  return useMutation<RatingView, Error, { scores: SubmitRatingRequest; idempotencyKey: string }>({
    // The key makes a repeated request (a retry after a lost answer) answer the same rating, stored once.
    mutationFn: ({ scores, idempotencyKey }) => apiJson<RatingView>('POST', '/api/joy-ratings', scores, { 'Idempotency-Key': idempotencyKey }),
    onSuccess: async (rating) => {
      toast(TOASTS.ratingSaved);
      await Promise.all([
        client.invalidateQueries({ queryKey: RATINGS_KEY }),
        client.invalidateQueries({ queryKey: LATEST_RATING_KEY }),
      ]);
      options.onSaved?.(rating);
    },
    onError: (error) => {
      if (isUnauthorizedError(error)) return;
      toast(TOASTS.ratingFailed);
    },
  });
}
