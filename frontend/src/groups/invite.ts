/** Copy and Share of an invite code (SPEC §8): the browser's clipboard and share sheet, with the spec's toasts. */
import { TOASTS, toast } from '../lib/toast';
import type { GroupView } from '@joy/domain';
import { shareText, shareTitle } from './logic';

/** Copies the code: "Copied!" on success, "Failed to copy invite code" when the clipboard refuses or is missing. */
export async function copyInviteCode(code: string): Promise<boolean> {
  try {
    if (!navigator.clipboard?.writeText) throw new Error('Clipboard unavailable');
    await navigator.clipboard.writeText(code);
    toast(TOASTS.inviteCopied);
    return true;
  } catch {
    toast(TOASTS.inviteCopyFailed);
    return false;
  }
}

/**
 * Opens the device share sheet with a text offering the invite code. Without share support it copies the
 * code instead. Share errors (including the user closing the sheet) are ignored.
 */
export async function shareInviteCode(group: Pick<GroupView, 'name' | 'inviteCode'>): Promise<void> {
  if (typeof navigator.share !== 'function') {
    await copyInviteCode(group.inviteCode);
    return;
  }
  try {
    await navigator.share({ title: shareTitle(group), text: shareText(group, window.location.origin) });
  } catch {
    // Cancelled or refused: nothing to tell.
  }
}
