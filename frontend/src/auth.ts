import { useQuery } from '@tanstack/react-query';
import { getQueryFn } from './api';
import type { SubscriptionStatusView, UserView } from '@joy/domain';

export const AUTH_USER_KEY = ['/api/auth/user'] as const;

/**
 * The signed-in user. A 401 means "signed out" (user null), not an error. `isError`: the check itself
 * failed (offline, server unreachable), so whether the person is signed in is unknown.
 */
export function useAuth(): { user: UserView | undefined; isLoading: boolean; isAuthenticated: boolean; isError: boolean } {
  const { data, isLoading, isError } = useQuery<UserView | null>({
    queryKey: AUTH_USER_KEY,
    queryFn: getQueryFn<UserView | null>({ on401: 'returnNull' }),
    retry: false,
  });
  return { user: data ?? undefined, isLoading, isAuthenticated: !!data, isError: isError && data === undefined };
}

/** Free or premium. Undefined while loading. */
export function useSubscriptionStatus(enabled = true) {
  return useQuery<SubscriptionStatusView>({ queryKey: ['/api/subscription-status'], enabled });
}
