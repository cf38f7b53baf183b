import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { UserSettingsView } from '@joy/domain';
import { apiJson, isUnauthorizedError } from '../api';
import { toast } from '../lib/toast';

export const SETTINGS_KEY = ['/api/settings'] as const;

export const SETTINGS_TOASTS = {
  saved: { title: 'Settings saved', variant: 'success' },
  failed: { title: 'Error', description: 'Your settings could not be saved. Please try again.', variant: 'destructive' },
} as const;

/** The signed-in person's settings. */
export function useSettings() {
  return useQuery<UserSettingsView>({ queryKey: SETTINGS_KEY });
}

/** PATCH /api/settings with the settings to change; the answer (all settings) replaces the cached ones. */
export function useChangeSettings() {
  const client = useQueryClient();
  return useMutation<UserSettingsView, Error, Partial<UserSettingsView>>({
    mutationFn: (changes) => apiJson<UserSettingsView>('PATCH', '/api/settings', changes),
    onSuccess: (settings) => {
      client.setQueryData(SETTINGS_KEY, settings);
      toast(SETTINGS_TOASTS.saved);
    },
    onError: (error) => {
      if (isUnauthorizedError(error)) return;
      toast(SETTINGS_TOASTS.failed);
    },
  });
}
