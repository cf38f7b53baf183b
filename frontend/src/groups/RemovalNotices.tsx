import type { GroupRemovalView } from '@joy/domain';
import { Alert } from 'antd';
import { useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { useAuth } from '../auth';
import { formatDate } from '../lib/dates';
import { usePersonTimeZone } from '../settings/api';
import { GROUPS_KEY } from '../queries';

/** GET /api/groups/removals (under the list's key: invalidated with it, e.g. on a join). */
const REMOVALS_KEY = [...GROUPS_KEY, 'removals'] as const;

/*
 * Closed notices are remembered on this device, per person (a removal is told for 30 days; on another device it
 * shows again until closed there). localStorage may refuse (private windows): then it shows again next visit.
 */
const dismissedKey = (userId: string) => `joy.closed-removals.${userId}`;
const noticeId = (removal: GroupRemovalView) => `${removal.groupId}@${removal.removedAt}`;

function readDismissed(userId: string): string[] {
  try {
    const stored: unknown = JSON.parse(localStorage.getItem(dismissedKey(userId)) ?? '[]');
    return Array.isArray(stored) ? stored.filter((id): id is string => typeof id === 'string') : [];
  } catch {
    return [];
  }
}

function writeDismissed(userId: string, ids: string[]): void {
  try {
    localStorage.setItem(dismissedKey(userId), JSON.stringify(ids));
  } catch {
    // Not kept: it shows again at the next visit.
  }
}

/**
 * Tells a person whose owner removed them from a group (it just went from their list otherwise): which group, when,
 * and how to come back. One notice per removal of the last 30 days, each closable.
 */
export function RemovalNotices() {
  const { user } = useAuth();
  const timeZone = usePersonTimeZone();
  const removals = useQuery<GroupRemovalView[]>({ queryKey: REMOVALS_KEY, enabled: !!user });
  // Closed before (read once per person), and in this visit (shown closed even where storage refuses).
  const userId = user?.id;
  const closedBefore = useMemo(() => (userId ? readDismissed(userId) : []), [userId]);
  const [closedNow, setClosedNow] = useState<string[]>([]);
  if (!user) return null;
  const dismissed = [...closedBefore, ...closedNow];
  const shown = (removals.data ?? []).filter((removal) => !dismissed.includes(noticeId(removal)));
  if (shown.length === 0) return null;

  const close = (removal: GroupRemovalView) => {
    setClosedNow([...closedNow, noticeId(removal)]);
    // Only the removals still told are kept: the list does not grow for ever.
    writeDismissed(user.id, [...dismissed, noticeId(removal)].filter((id) => removals.data?.some((r) => noticeId(r) === id)));
  };
  return (
    <div className="group-removals">
      {shown.map((removal) => (
        <Alert
          key={noticeId(removal)}
          type="info"
          role="status"
          showIcon
          title={`You were removed from ${removal.groupName}`}
          description={`Its owner removed you on ${formatDate(removal.removedAt, { timeZone })}. ${removal.groupDeleted ? 'The group has been deleted since.' : 'To join it again, ask them for a new invite code.'}`}
          closable={{ 'aria-label': `Close the notice about ${removal.groupName}`, onClose: () => close(removal) }}
        />
      ))}
    </div>
  );
}
