import { RATINGS_PER_DAY_MAX } from '@joy/domain';
import type { NotificationInstance } from 'antd/es/notification/interface';

/**
 * Toasts through Ant Design's notification API (bound by <ToastBridge/> inside antd's <App>, which sets
 * maxCount 1 and a 5 s duration), or, while a dialog is open, in the dialog (<DialogToasts/>). Every page uses the
 * texts of TOASTS so they match the spec exactly.
 */
export type ToastVariant = 'default' | 'success' | 'destructive';

export interface ToastInput {
  title: string;
  description?: string;
  variant?: ToastVariant;
}

export const TOAST_DURATION_SECONDS = 5;

let notifier: NotificationInstance | null = null;

export function bindNotifier(instance: NotificationInstance | null): void {
  notifier = instance;
}

/**
 * Shows a toast inside the open dialog, if one is open (components/DialogToasts.tsx): returns whether it did. A toast
 * over a dialog lay over its close button or its buttons, and under it, it could not be read.
 */
export interface DialogToaster {
  show(input: ToastInput): boolean;
  dismiss(): void;
}

let dialogToaster: DialogToaster | null = null;

export function bindDialogToaster(instance: DialogToaster | null): void {
  dialogToaster = instance;
}

/** One toast on screen at a time (SPEC §9): a toast in a dialog takes the corner's off, and the other way round. */
export function toast(input: ToastInput): void {
  if (dialogToaster?.show(input)) {
    notifier?.destroy();
    return;
  }
  cornerToast(input);
}

/** The toast at its place on the screen (App.tsx), for `seconds`. */
export function cornerToast({ title, description, variant = 'default' }: ToastInput, seconds = TOAST_DURATION_SECONDS): void {
  if (!notifier) {
    console.log(`Toast (no notifier bound): ${title}${description ? ` — ${description}` : ''}`);
    return;
  }
  dialogToaster?.dismiss();
  const show = variant === 'destructive' ? notifier.error : variant === 'success' ? notifier.success : notifier.info;
  show({
    title,
    description,
    duration: seconds,
    role: variant === 'destructive' ? 'alert' : 'status',
  });
}

/** Takes the toasts off the screen (the phone's menu opens: they sat over its last links). */
export function dismissToasts(): void {
  notifier?.destroy();
  dialogToaster?.dismiss();
}

export function useToast(): { toast: typeof toast } {
  return { toast };
}

/** The spec's toast texts (SPEC §8), shared by every page. */
export const TOASTS = {
  unauthorized: { title: 'Unauthorized', description: 'You are logged out. Logging in again...', variant: 'destructive' },
  ratingSaved: { title: 'Rating Saved!', description: 'Your joy factors have been updated successfully.', variant: 'success' },
  ratingFailed: { title: 'Error', description: 'Failed to save rating. Please try again.', variant: 'destructive' },
  dayFull: { title: 'This day is full', description: `A day holds at most ${RATINGS_PER_DAY_MAX} ratings.`, variant: 'destructive' },
  ratingGone: { title: 'This rating is gone', description: 'It was deleted, perhaps on another device or in another tab, so there is nothing to change.', variant: 'destructive' },
  ratingUpdated: { title: 'Rating Updated', description: 'Your rating now has the new scores everywhere.', variant: 'success' },
  ratingDeleted: { title: 'Rating Deleted', description: 'It no longer counts in your scores, charts or groups.', variant: 'success' },
  ratingDeleteFailed: { title: 'Error', description: 'Failed to delete the rating. Please try again.', variant: 'destructive' },
  groupCreated: { title: 'Group created successfully!', variant: 'success' },
  groupCreateFailed: { title: 'Error', description: 'Failed to create group. Please try again.', variant: 'destructive' },
  groupNameRequired: { title: 'Error', description: 'Group name is required.', variant: 'destructive' },
  groupJoined: { title: 'Joined group successfully!', variant: 'success' },
  groupJoinFailed: { title: 'Error', description: 'Failed to join group. Please check the invite code.', variant: 'destructive' },
  groupLeft: { title: 'You left the group', variant: 'success' },
  groupLeaveFailed: { title: 'Error', description: 'Failed to leave the group. Please try again.', variant: 'destructive' },
  groupRenamed: { title: 'Group updated', variant: 'success' },
  groupRenameFailed: { title: 'Error', description: 'Failed to update the group. Please try again.', variant: 'destructive' },
  memberRemoved: { title: 'Member removed', variant: 'success' },
  memberRemoveFailed: { title: 'Error', description: 'Failed to remove the member. Please try again.', variant: 'destructive' },
  groupDeleted: { title: 'Group deleted', variant: 'success' },
  groupDeleteFailed: { title: 'Error', description: 'Failed to delete the group. Please try again.', variant: 'destructive' },
  inviteCodeRequired: { title: 'Error', description: 'Invite code is required.', variant: 'destructive' },
  inviteCopied: { title: 'Copied!', description: 'Invite code copied to clipboard', variant: 'success' },
  inviteCopyFailed: { title: 'Error', description: 'Failed to copy invite code', variant: 'destructive' },
  subscriptionFailed: { title: 'Error', description: 'Failed to create subscription. Please try again.', variant: 'destructive' },
  alreadySubscribed: { title: 'Already Subscribed', description: 'You already have an active Joy Premium subscription!' },
  paymentSucceeded: {
    title: 'Welcome to Joy Premium!',
    description: 'Your subscription is now active. Enjoy Care Actions and premium features!',
    variant: 'success',
  },
} as const satisfies Record<string, ToastInput>;

/** 'Payment Failed' with the payment provider's message. */
export function paymentFailedToast(providerMessage: string): ToastInput {
  return { title: 'Payment Failed', description: providerMessage, variant: 'destructive' };
}
