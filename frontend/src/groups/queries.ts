import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { apiJson, isUnauthorizedError } from '../api';
import { TOASTS, toast } from '../lib/toast';
import { useSubscriptionStatus } from '../auth';
import { GROUPS_KEY, useGroups } from '../queries';
import { FREE_PLAN_GROUP_LIMIT, FREE_PLAN_GROUP_LIMIT_MESSAGE, type CreateGroupRequest, type GroupDetailView, type GroupMemberView, type GroupRatingView, type GroupView, type JoinGroupRequest } from '@joy/domain';
import { errorKind, parseApiError } from '../lib/apiError';
import { freePlanLimitMessage, groupFailureToast, INVITE_CODE_CHANGED, isNotFoundError, MEMBER_ALREADY_GONE, NO_LONGER_IN_GROUP } from './logic';

/** Query keys of one group; the default query function GETs them joined with "/". */
export const groupKey = (id: string) => ['/api/groups', id] as const;
export const groupMembersKey = (id: string) => ['/api/groups', id, 'members'] as const;
export const groupRatingsKey = (id: string) => ['/api/groups', id, 'ratings'] as const;

export function useGroup(id: string) {
  return useQuery<GroupDetailView>({ queryKey: groupKey(id) });
}

export function useGroupMembers(id: string) {
  return useQuery<GroupMemberView[]>({ queryKey: groupMembersKey(id) });
}

export function useGroupRatings(id: string) {
  return useQuery<GroupRatingView[]>({ queryKey: groupRatingsKey(id) });
}

/**
 * Marks one group's reads stale, so that opening it shows its members and ratings as they are now (reads
 * otherwise never go stale, SPEC §9). Called when the user selects the group: a user action, not polling.
 */
export function useRefreshGroup() {
  const client = useQueryClient();
  return (id: string) => client.invalidateQueries({ queryKey: groupKey(id) });
}

/**
 * The free plan's limit shown in Create or Join: the server's refusal (`error`), or, before the person fills the form
 * in, a free member already in FREE_PLAN_GROUP_LIMIT groups. Null otherwise, and while the plan or groups are unknown.
 */
export function useFreePlanLimit(error: unknown): string | null {
  const groups = useGroups();
  const plan = useSubscriptionStatus();
  const reached = plan.data?.isPremium === false && (groups.data?.length ?? 0) >= FREE_PLAN_GROUP_LIMIT;
  return freePlanLimitMessage(error) ?? (reached ? FREE_PLAN_GROUP_LIMIT_MESSAGE : null);
}

/**
 * Whether a failed create or join is told by a toast. Not a 401 (handled globally), nor the free-plan limit: the
 * dialog shows that one with its Upgrade, and a toast of it as well covered the dialog's name field on a phone.
 */
function toastsFailure(error: Error): boolean {
  return !isUnauthorizedError(error) && !freePlanLimitMessage(error);
}

/**
 * Creates a group. Success: "Group created successfully!" and the group list is refetched (Home's list
 * and count too). Failure: the spec's toast (the free-plan limit is shown in the dialog instead).
 */
export function useCreateGroup() {
  const client = useQueryClient();
  return useMutation<GroupView, Error, { body: CreateGroupRequest; idempotencyKey: string }>({
    // The key makes a repeated request (a retry after a lost answer) answer the same group, created once.
    mutationFn: ({ body, idempotencyKey }) => apiJson<GroupView>('POST', '/api/groups', body, { 'Idempotency-Key': idempotencyKey }),
    onSuccess: async () => {
      toast(TOASTS.groupCreated);
      await client.invalidateQueries({ queryKey: GROUPS_KEY });
    },
    onError: (error) => {
      if (toastsFailure(error)) toast(groupFailureToast('create', error));
    },
  });
}

/** Joins a group with an invite code (the server matches it case-insensitively). Toasts like useCreateGroup. */
export function useJoinGroup() {
  const client = useQueryClient();
  return useMutation<GroupView, Error, JoinGroupRequest>({
    mutationFn: (body) => apiJson<GroupView>('POST', '/api/groups/join', body),
    onSuccess: async () => {
      toast(TOASTS.groupJoined);
      await client.invalidateQueries({ queryKey: GROUPS_KEY });
    },
    onError: (error) => {
      if (toastsFailure(error)) toast(groupFailureToast('join', error));
    },
  });
}

/**
 * Drops a group's answers from the cache: for a group left or deleted, once its page is gone (GroupDetail). Dropped
 * while the page still showed it (or refetched with the list), they were asked for again: three 404s in the console.
 */
export function useForgetGroup() {
  const client = useQueryClient();
  return useCallback((id: string) => client.removeQueries({ queryKey: groupKey(id) }), [client]);
}

/**
 * Leaves a group. Success: a toast and the group list refetched (this group's reads are dropped by its page, see
 * useForgetGroup). "No such group" is success too (deleted, or the person removed, since the page was loaded): said
 * so, and back to the list, instead of an error that every retry would repeat. Failure: the spec-style error toast
 * (a 401 is handled globally).
 */
export function useLeaveGroup(id: string) {
  const client = useQueryClient();
  return useMutation<'left' | 'gone', Error, void>({
    mutationFn: () =>
      apiJson<void>('POST', `/api/groups/${encodeURIComponent(id)}/leave`).then(
        () => 'left' as const,
        (error: Error) => {
          if (isNotFoundError(error)) return 'gone' as const;
          throw error;
        },
      ),
    onSuccess: async (outcome) => {
      toast(outcome === 'gone' ? NO_LONGER_IN_GROUP : TOASTS.groupLeft);
      await client.invalidateQueries({ queryKey: GROUPS_KEY, exact: true });
    },
    onError: (error) => {
      if (isUnauthorizedError(error)) return;
      toast(TOASTS.groupLeaveFailed);
    },
  });
}

/**
 * An owner's action refused because the page is out of date (the group deleted, the person no longer its owner or
 * member, the member gone): the group is read again, so the page shows it as it is now rather than offering the
 * same refused action again.
 */
function refetchWhenOutOfDate(client: ReturnType<typeof useQueryClient>, id: string, error: Error): void {
  const kind = errorKind(error);
  if (kind === 'not_found' || kind === 'forbidden') void Promise.all([client.invalidateQueries({ queryKey: groupKey(id) }), client.invalidateQueries({ queryKey: GROUPS_KEY, exact: true })]);
}

/** The owner's rename: the group, its list entry and Home's list refetched. */
export function useRenameGroup(id: string) {
  const client = useQueryClient();
  return useMutation<GroupView, Error, { name: string; description: string | null }>({
    mutationFn: (body) => apiJson<GroupView>('PATCH', `/api/groups/${encodeURIComponent(id)}`, body),
    onSuccess: async () => {
      toast(TOASTS.groupRenamed);
      await Promise.all([client.invalidateQueries({ queryKey: groupKey(id) }), client.invalidateQueries({ queryKey: GROUPS_KEY })]);
    },
    onError: (error) => {
      if (isUnauthorizedError(error)) return;
      refetchWhenOutOfDate(client, id, error);
      toast(groupFailureToast('rename', error));
    },
  });
}

/** The owner removes a member: the group's figures, members and activity refetched. */
export function useRemoveMember(id: string) {
  const client = useQueryClient();
  return useMutation<void, Error, string>({
    mutationFn: (userId) => apiJson<void>('DELETE', `/api/groups/${encodeURIComponent(id)}/members/${encodeURIComponent(userId)}`),
    onSuccess: async () => {
      toast(TOASTS.memberRemoved);
      await client.invalidateQueries({ queryKey: groupKey(id) });
    },
    onError: (error) => {
      if (isUnauthorizedError(error)) return;
      refetchWhenOutOfDate(client, id, error);
      toast(parseApiError(error).code === 'group.member_not_found' ? MEMBER_ALREADY_GONE : groupFailureToast('remove', error));
    },
  });
}

/** The owner gives the group a new invite code: the group (with the code shown) and the lists refetched. */
export function useNewInviteCode(id: string) {
  const client = useQueryClient();
  return useMutation<GroupView, Error, void>({
    mutationFn: () => apiJson<GroupView>('POST', `/api/groups/${encodeURIComponent(id)}/invite-code`),
    onSuccess: async () => {
      toast(INVITE_CODE_CHANGED);
      await client.invalidateQueries({ queryKey: GROUPS_KEY });
    },
    onError: (error) => {
      if (isUnauthorizedError(error)) return;
      refetchWhenOutOfDate(client, id, error);
      toast(groupFailureToast('newInviteCode', error));
    },
  });
}

/** The owner deletes the group: like leaving, the list is refetched and its page drops its reads. */
export function useDeleteGroup(id: string) {
  const client = useQueryClient();
  return useMutation<void, Error, void>({
    mutationFn: () => apiJson<void>('DELETE', `/api/groups/${encodeURIComponent(id)}`),
    onSuccess: async () => {
      toast(TOASTS.groupDeleted);
      await client.invalidateQueries({ queryKey: GROUPS_KEY, exact: true });
    },
    onError: (error) => {
      if (isUnauthorizedError(error)) return;
      refetchWhenOutOfDate(client, id, error);
      toast(groupFailureToast('delete', error));
    },
  });
}
