import { type InfiniteData, useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiJson, apiRequest, isUnauthorizedError } from './api';
import { parseApiError, withServerReason } from './lib/apiError';
import { useMemo } from 'react';
import { ADVANCED_INSIGHTS_KEY } from './insights/advanced';
import { TOASTS, toast } from './lib/toast';
import type { CorrectRatingRequest, GroupView, RatingCalendarView, RatingSummaryView, RatingView, SubmitRatingRequest } from '@joy/domain';

export const RATINGS_KEY = ['/api/joy-ratings'] as const;
export const LATEST_RATING_KEY = ['/api/joy-ratings/latest'] as const;
export const GROUPS_KEY = ['/api/groups'] as const;

/**
 * Everything a rating shows in: the list's pages, the summaries and the calendar (all under the RATINGS_KEY prefix),
 * latest (Dashboard, Insights, Home), the premium analytics and the groups' figures (a prefix: every group's
 * detail, members and ratings). Refetched after a save, an edit or a delete.
 */
export function invalidateRatingViews(client: ReturnType<typeof useQueryClient>): Promise<unknown> {
  return Promise.all([RATINGS_KEY, LATEST_RATING_KEY, ADVANCED_INSIGHTS_KEY, GROUPS_KEY].map((queryKey) => client.invalidateQueries({ queryKey })));
}

/** Ratings per page of the list (the server's default): the Dashboard's 14-rating trend fits in the first. */
export const RATINGS_PAGE = 50;

export interface RatingsPage {
  ratings: RatingView[];
  /** The cursor of the next page (the X-Next-Before header); null on the last page. */
  next: string | null;
}

/** One page of GET /api/joy-ratings: the first without a cursor, then the one after `before`. */
export async function fetchRatingsPage(before: string | null): Promise<RatingsPage> {
  const res = await apiRequest('GET', before === null ? '/api/joy-ratings' : `/api/joy-ratings?limit=${RATINGS_PAGE}&before=${encodeURIComponent(before)}`);
  return { ratings: (await res.json()) as RatingView[], next: res.headers?.get('X-Next-Before') ?? null };
}

/**
 * The user's ratings, newest first, a page at a time (GET /api/joy-ratings, then `?before=` the cursor the last page
 * named): `ratings` holds the pages loaded so far, `fetchNextPage` loads one more while `hasNextPage`.
 */
export function useRatingPages() {
  const query = useInfiniteQuery<RatingsPage, Error, InfiniteData<RatingsPage>, readonly string[], string | null>({
    queryKey: [...RATINGS_KEY, 'pages'],
    queryFn: ({ pageParam }) => fetchRatingsPage(pageParam),
    initialPageParam: null,
    getNextPageParam: (last) => last.next,
  });
  const ratings = useMemo(() => query.data?.pages.flatMap((p) => p.ratings), [query.data]);
  return { ...query, ratings };
}

/**
 * GET /api/joy-ratings/summary: the ratings of the days `from` to `to` (each null: open) in aggregate: count, days
 * tracked and the means, computed by the server from its per-day sums (under RATINGS_KEY: refreshed with it).
 */
export function useRatingSummary(from: string | null, to: string | null, options: { enabled?: boolean } = {}) {
  const params = new URLSearchParams();
  if (from !== null) params.set('from', from);
  if (to !== null) params.set('to', to);
  const query = params.toString();
  return useQuery<RatingSummaryView>({ queryKey: [...RATINGS_KEY, query ? `summary?${query}` : 'summary'], enabled: options.enabled ?? true });
}

/** GET /api/joy-ratings/calendar?year=YYYY: the year's rated days and the streaks (under RATINGS_KEY: refreshed with it). */
export function useRatingCalendar(year: number) {
  return useQuery<RatingCalendarView>({ queryKey: [...RATINGS_KEY, `calendar?year=${year}`] });
}

/**
 * GET /api/joy-ratings/days/:day: the user's ratings of one day (`YYYY-MM-DD`), newest first, with their notes; not
 * asked while `day` is null (under RATINGS_KEY: refreshed after a save, an edit or a delete).
 */
export function useRatingsOfDay(day: string | null) {
  return useQuery<RatingView[]>({ queryKey: [...RATINGS_KEY, `days/${day}`], enabled: day !== null });
}

/**
 * GET /api/joy-ratings/recent?limit=: the user's latest `limit` ratings by the day they rate, then the time made
 * (`latestFirst`), with their notes: the Dashboard's and the Insights' trend, gauge and charts. Not the list's pages:
 * they go by the time a rating was made, and missed days filled in today came before yesterday's rating there
 * (under RATINGS_KEY: refreshed with it).
 */
export function useRecentRatings(limit: number) {
  return useQuery<RatingView[]>({ queryKey: [...RATINGS_KEY, `recent?limit=${limit}`] });
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
 * handled globally: "Unauthorized" and the way to /api/login); a day that holds the most ratings it can: the
 * server's words, which name the day (trying again would not help).
 */
export function useSubmitRating(options: { onSaved?: (rating: RatingView) => void } = {}) {
  const client = useQueryClient();
  return useMutation<RatingView, Error, { scores: SubmitRatingRequest; idempotencyKey: string; renewKey: () => string }>({
    // The key makes a repeated request (a retry after a lost answer) answer the same rating, stored once. If the
    // rating that key saved was deleted since (on the list, or on another device), this click is a new save.
    mutationFn: async ({ scores, idempotencyKey, renewKey }) => {
      const post = (key: string) => apiJson<RatingView>('POST', '/api/joy-ratings', scores, { 'Idempotency-Key': key });
      try {
        return await post(idempotencyKey);
      } catch (error) {
        if (parseApiError(error).code !== 'rating.idempotency_key_withdrawn') throw error;
        return post(renewKey());
      }
    },
    onSuccess: async (rating) => {
      toast(TOASTS.ratingSaved);
      await invalidateRatingViews(client);
      options.onSaved?.(rating);
    },
    onError: (error) => {
      if (isUnauthorizedError(error)) return;
      const { code, message } = parseApiError(error);
      toast(code === 'rating.day_full' ? { ...TOASTS.dayFull, ...(message ? { description: message } : {}) } : withServerReason(TOASTS.ratingFailed, error));
    },
  });
}

/** PUT /api/joy-ratings/:id: new values for one of the user's ratings; every view refreshed. */
export function useCorrectRating(options: { onSaved?: (rating: RatingView) => void; onGone?: () => void } = {}) {
  const client = useQueryClient();
  return useMutation<RatingView, Error, { id: string; scores: CorrectRatingRequest }>({
    mutationFn: ({ id, scores }) => apiJson<RatingView>('PUT', `/api/joy-ratings/${encodeURIComponent(id)}`, scores),
    onSuccess: async (rating) => {
      toast(TOASTS.ratingUpdated);
      await invalidateRatingViews(client);
      options.onSaved?.(rating);
    },
    onError: async (error) => {
      if (isUnauthorizedError(error)) return;
      if (parseApiError(error).code === 'rating.not_found') {
        // Deleted elsewhere meanwhile: trying again can never work ("Please try again" said it would). The lists
        // are read again without it, and the edit goes.
        toast(TOASTS.ratingGone);
        options.onGone?.();
        await invalidateRatingViews(client);
        return;
      }
      toast(withServerReason(TOASTS.ratingFailed, error));
    },
  });
}

/** DELETE /api/joy-ratings/:id: the rating stops counting anywhere; every view refreshed. */
export function useDeleteRating() {
  const client = useQueryClient();
  return useMutation<void, Error, { id: string }>({
    mutationFn: ({ id }) => apiJson<void>('DELETE', `/api/joy-ratings/${encodeURIComponent(id)}`),
    onSuccess: async () => {
      toast(TOASTS.ratingDeleted);
      await invalidateRatingViews(client);
    },
    onError: (error) => {
      if (isUnauthorizedError(error)) return;
      toast(TOASTS.ratingDeleteFailed);
    },
  });
}
