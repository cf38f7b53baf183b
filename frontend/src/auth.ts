import { useQuery } from '@tanstack/react-query';
import { getQueryFn } from './api';
import type { SubscriptionStatus, User } from './types';

export const AUTH_USER_KEY = ['/api/auth/user'] as const;

/**
 * The signed-in user. A 401 means "signed out" (user null), not an error. `isError`: the check itself
 * failed (offline, server unreachable), so whether the person is signed in is unknown.
 */
export function useAuth(): { user: User | undefined; isLoading: boolean; isAuthenticated: boolean; isError: boolean } {
  const { data, isLoading, isError } = useQuery<User | null>({
    queryKey: AUTH_USER_KEY,
    queryFn: getQueryFn<User | null>({ on401: 'returnNull' }),
    retry: false,
  });
  return { user: data ?? undefined, isLoading, isAuthenticated: !!data, isError: isError && data === undefined };
}

/** Free or premium. Undefined while loading. */
export function useSubscriptionStatus(enabled = true) {
  return useQuery<SubscriptionStatus>({ queryKey: ['/api/subscription-status'], enabled });
}
