/**
 * Pure logic of the Groups page: names, figures, badge style, share text and how a failed create or join
 * is told to the user. No React, no I/O: tested in logic.test.ts.
 */
import { errorKind, parseApiError, withServerReason } from '../lib/apiError';
import { TOASTS, type ToastInput } from '../lib/toast';
import { formatScore } from '../lib/score';
import { type GroupMemberView, type GroupRatingView, type GroupView, initialOf, normalizeInviteCode } from '@joy/domain';
import { formatDate, formatDateTime } from '../lib/dates';

/** Group recent activity shows the 10 newest ratings (SPEC §9). */
export const RECENT_ACTIVITY_LIMIT = 10;

/** A group average at or above this gets the badge's default (emphasised) style (SPEC §9). */
export const AVERAGE_BADGE_DEFAULT_FROM = 4;

/** The URL search parameter that mirrors the selected group (`/groups?group=<id>`). */
export const SELECTED_GROUP_PARAM = 'group';

// ---- members --------------------------------------------------------------------------------------------

/** A member's name: first name, else the e-mail before the @, else "Member". */
export function memberName(member: Pick<GroupMemberView, 'firstName' | 'email'> | null | undefined): string {
  const first = member?.firstName?.trim();
  if (first) return first;
  const local = member?.email?.split('@')[0]?.trim();
  if (local) return local;
  return 'Member';
}

/** The letter shown in a member's avatar when there is no picture. */
export function memberInitial(member: Pick<GroupMemberView, 'firstName' | 'email'> | null | undefined): string {
  return initialOf(memberName(member));
}

/** userId → display name, for labelling the group's ratings. */
export function memberNamesById(members: ReadonlyArray<GroupMemberView>): Map<string, string> {
  return new Map(members.map((m) => [m.id, memberName(m)]));
}

/** A member's latest overall score ("2.0"), or "No ratings yet". */
export function latestScoreText(score: number | null | undefined): string {
  return typeof score === 'number' && Number.isFinite(score) ? formatScore(score) : 'No ratings yet';
}

// ---- figures ------------------------------------------------------------------------------------------

/** Whether the group has an average to show (the server answers 0 when nobody has rated). */
export function hasGroupAverage(average: number | null | undefined): average is number {
  return typeof average === 'number' && Number.isFinite(average) && average > 0;
}

/** The Average Joy Score card: one decimal, or N/A when nobody has rated. */
export function averageScoreText(average: number | null | undefined): string {
  return hasGroupAverage(average) ? formatScore(average) : 'N/A';
}

/** The Group Average badge text: "x / 5.0". */
export function groupAverageBadgeText(average: number): string {
  return `${formatScore(average)} / 5.0`;
}

/** The Group Average badge style: default (emphasised) at 4 or above, secondary below. */
export function groupAverageBadgeVariant(average: number): 'default' | 'secondary' {
  return average >= AVERAGE_BADGE_DEFAULT_FROM ? 'default' : 'secondary';
}

/** Active Members: "n of m". */
export function activeMembersText(active: number, total: number): string {
  return `${active} of ${total}`;
}

/** The newest ratings for Recent Activity (the server already lists newest first; sorted again to be safe). */
export function recentActivity(ratings: ReadonlyArray<GroupRatingView>, limit = RECENT_ACTIVITY_LIMIT): GroupRatingView[] {
  return [...ratings]
    .sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt))
    .slice(0, limit);
}

// ---- dates --------------------------------------------------------------------------------------------

/** "Created Mar 5, 2026" (the browser's locale), or "" for a bad date. */
export function createdText(iso: string, locale?: string): string {
  const date = formatDate(iso, { locale });
  return date ? `Created ${date}` : '';
}

/** A rating's timestamp: "Mar 5, 2026, 2:03 PM", in the viewer's zone (their setting; the browser's without one). */
export function activityTimestamp(iso: string, timeZone?: string, locale?: string): string {
  return formatDateTime(iso, { timeZone, locale });
}

// ---- invite code ----------------------------------------------------------------------------------------

/** The text of the device share sheet: an invitation with the invite code (and where to enter it). */
export function shareText(group: Pick<GroupView, 'name' | 'inviteCode'>, origin?: string): string {
  const where = origin ? ` at ${origin.replace(/\/+$/, '')}/groups` : '';
  return `Join my group "${group.name}" on Joy! Use the invite code ${group.inviteCode} on the Groups page${where}.`;
}

/** The title of the share sheet. */
export function shareTitle(group: Pick<GroupView, 'name'>): string {
  return `Join ${group.name} on Joy`;
}

// ---- dialogs --------------------------------------------------------------------------------------------

/** The create dialog's payload, or the spec's toast when the name is blank after trimming. */
export function validateCreateGroup(name: string, description: string):
  | { ok: true; value: { name: string; description?: string } }
  | { ok: false; toast: ToastInput } {
  const trimmedName = name.trim();
  if (!trimmedName) return { ok: false, toast: TOASTS.groupNameRequired };
  const trimmedDescription = description.trim();
  return { ok: true, value: trimmedDescription ? { name: trimmedName, description: trimmedDescription } : { name: trimmedName } };
}

/** The join dialog's payload (the code normalised), or the spec's toast when nothing of a code is left. */
export function validateJoinGroup(inviteCode: string):
  | { ok: true; value: { inviteCode: string } }
  | { ok: false; toast: ToastInput } {
  const code = normalizeInviteCode(inviteCode);
  if (!code) return { ok: false, toast: TOASTS.inviteCodeRequired };
  return { ok: true, value: { inviteCode: code } };
}

/** The server's free-plan refusal (`plan.group_limit`, "Free plan allows up to 3 groups…"), or null for any other error. */
export function freePlanLimitMessage(error: unknown): string | null {
  const { code, message } = parseApiError(error);
  return code === 'plan.group_limit' ? message : null;
}

/** The owner's new invite code: done, or not. */
export const INVITE_CODE_CHANGED: ToastInput = {
  title: 'New invite code',
  description: 'The old code no longer works. Share the new one with the people you want to invite.',
  variant: 'success',
};
const INVITE_CODE_CHANGE_FAILED: ToastInput = { title: 'Error', description: 'Failed to change the invite code. Please try again.', variant: 'destructive' };

/**
 * The toast of a failed group action. The spec's text always; the server's reason appended when it is one the user
 * can act on (invalid: a bad field, not_found: an unknown code, conflict: already a member). The free-plan limit is
 * no toast: the dialog shows it, with its Upgrade (useCreateGroup, useJoinGroup). (A 401 is handled globally and
 * never reaches here.)
 */
const FAILURE_TOASTS = {
  create: TOASTS.groupCreateFailed,
  join: TOASTS.groupJoinFailed,
  rename: TOASTS.groupRenameFailed,
  remove: TOASTS.memberRemoveFailed,
  newInviteCode: INVITE_CODE_CHANGE_FAILED,
  delete: TOASTS.groupDeleteFailed,
} as const;

export function groupFailureToast(kind: keyof typeof FAILURE_TOASTS, error: unknown): ToastInput {
  // SPEC §8's text, then the server's reason ("… Please check the invite code. You are already a member of this group.").
  return withServerReason(FAILURE_TOASTS[kind], error);
}

/**
 * What leaving does, said before it is done (PRODUCT.md: "an owner who leaves hands the group to the longest-standing
 * member; the last member leaving deletes it"): the last member deletes the group for good, and an owner who leaves
 * does not get the group back by rejoining.
 */
export function leaveGroupText({ memberCount, isOwner, nextOwnerName }: { memberCount: number; isOwner: boolean; nextOwnerName: string | null }): string {
  if (memberCount <= 1) return 'You are its only member: leaving deletes the group, and its invite code stops working. This cannot be undone.';
  const apart = 'Its members will no longer see your joy, and you will no longer see theirs.';
  if (!isOwner) return `${apart} You can rejoin with its invite code.`;
  return `${apart} ${nextOwnerName ?? 'The longest-standing member'} becomes its owner; if you rejoin, you will be a member, not the owner.`;
}

/** Leave answered "no such group": it was deleted, or the person removed, meanwhile. What they wanted is so. */
export const NO_LONGER_IN_GROUP: ToastInput = { title: 'You are no longer in this group', description: 'It was deleted, or you were removed from it.' };

/** Remove answered "not a member": they left (or were removed) since the page was loaded. */
export const MEMBER_ALREADY_GONE: ToastInput = { title: 'Already gone', description: 'This person is no longer a member of the group.' };

/** Whether a read failed because the group does not exist or the user is not a member (a not_found error). */
export function isNotFoundError(error: unknown): boolean {
  return errorKind(error) === 'not_found';
}
