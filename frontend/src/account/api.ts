import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiRequest, isUnauthorizedError } from '../api';
import { browser } from '../lib/session';
import { toast } from '../lib/toast';

/** The export downloads: plain links, the server streams the file with Content-Disposition: attachment. */
export const EXPORT_URLS = {
  json: '/api/account/export?format=json',
  csv: '/api/account/export?format=csv',
} as const;

/** The word the person types to confirm; the server checks it too. */
export const CONFIRMATION_WORD = 'DELETE';

/** After the deletion the browser goes to the landing page (signed out) after this delay, so the toast is seen. */
export const AFTER_DELETE_DELAY_MS = 1200;

export const ACCOUNT_TOASTS = {
  deleted: { title: 'Account deleted', description: 'Your personal data has been erased. Goodbye, and take care.', variant: 'success' },
  deleteFailed: { title: 'Error', description: 'Failed to delete your account. Please try again.', variant: 'destructive' },
} as const;

export function isConfirmation(text: string): boolean {
  return text.trim() === CONFIRMATION_WORD;
}

/** DELETE /api/account { confirm: 'DELETE' }: on success the session is gone, so forget every cached read and leave. */
export function useDeleteAccount() {
  const client = useQueryClient();
  return useMutation<void, Error, void>({
    mutationFn: async () => {
      await apiRequest('DELETE', '/api/account', { confirm: CONFIRMATION_WORD });
    },
    onSuccess: () => {
      client.clear();
      toast(ACCOUNT_TOASTS.deleted);
      setTimeout(() => browser.navigate('/'), AFTER_DELETE_DELAY_MS);
    },
    onError: (error) => {
      if (isUnauthorizedError(error)) return;
      toast(ACCOUNT_TOASTS.deleteFailed);
    },
  });
}
