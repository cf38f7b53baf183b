import { useQuery } from '@tanstack/react-query';
import { getQueryFn } from './api';
import { parseApiError } from './lib/apiError';
import type { SubscriptionStatusView, UserView } from '@joy/domain';

export const AUTH_USER_KEY = ['/api/auth/user'] as const;

/** How long to wait before asking a server that is starting or busy again (its Retry-After: 2 s). */
export const SERVER_RETRY_MS = 2000;
/** Times a busy server (load shed) is asked again before the check fails; one that is starting is asked until it is up. */
const BUSY_RETRIES = 3;

/** The server's error code of a failed request (`server.starting`: still building its read models; `server.busy`: load shed). */
const codeOf = (error: unknown) => parseApiError(error).code;

/**
 * The signed-in user. A 401 means "signed out" (user null), not an error. `isError`: the check itself failed
 * (offline, server unreachable, or `busy`: still overloaded after 3 more tries), so whether the person is signed in
 * is unknown. `starting`: the server answered that it is starting (the first start after an update builds its read
 * models): the check is asked again every 2 s until it is up, and goes on by itself then.
 */
export function useAuth(): { user: UserView | undefined; isLoading: boolean; isAuthenticated: boolean; isError: boolean; starting: boolean; busy: boolean } {
  const { data, isLoading, isError, error, failureReason } = useQuery<UserView | null>({
    queryKey: AUTH_USER_KEY,
    queryFn: getQueryFn<UserView | null>({ on401: 'returnNull' }),
    retry: (failures, error) => codeOf(error) === 'server.starting' || (codeOf(error) === 'server.busy' && failures < BUSY_RETRIES),
    retryDelay: SERVER_RETRY_MS,
  });
  const failed = isError && data === undefined;
  return {
    user: data ?? undefined,
    isLoading,
    isAuthenticated: !!data,
    isError: failed,
    starting: isLoading && codeOf(failureReason) === 'server.starting',
    busy: failed && codeOf(error) === 'server.busy',
  };
}

/** Free or premium. Undefined while loading. */
export function useSubscriptionStatus(enabled = true) {
  return useQuery<SubscriptionStatusView>({ queryKey: ['/api/subscription-status'], enabled });
}
