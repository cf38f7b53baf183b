import { useEffect, useRef } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { canonicalTimeZone, type UserSettingsView } from '@joy/domain';
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

/** The zone the person's days are counted in: their setting, else this device's (undefined: UTC). */
export function usePersonTimeZone(): string | undefined {
  return useSettings().data?.timeZone ?? browserTimeZone() ?? undefined;
}

/** PATCH /api/settings with the settings to change; the answer (all settings) replaces the cached ones. */
export function useChangeSettings() {
  const client = useQueryClient();
  return useMutation<UserSettingsView, Error, Partial<UserSettingsView>>({
    mutationFn: (changes) => apiJson<UserSettingsView>('PATCH', '/api/settings', changes),
    onSuccess: (settings) => {
      client.setQueryData(SETTINGS_KEY, settings);
      // A new first name shows in the header and greetings, a new zone moves "today" in every figure: whatever
      // else was read is read again (in the background, for the pages that show it).
      void client.invalidateQueries({ predicate: (query) => query.queryKey[0] !== SETTINGS_KEY[0] });
      toast(SETTINGS_TOASTS.saved);
    },
    onError: (error) => {
      if (isUnauthorizedError(error)) return;
      toast(SETTINGS_TOASTS.failed);
    },
  });
}

/** The browser's own IANA zone, or null when it does not say. */
export function browserTimeZone(): string | null {
  try {
    return canonicalTimeZone(Intl.DateTimeFormat().resolvedOptions().timeZone);
  } catch {
    return null;
  }
}

/**
 * At the first sign-in (the person has no time zone yet) the browser's zone becomes theirs, silently, so that
 * their days are counted where they live from the start; they can change it in Settings.
 */
export function useAdoptBrowserTimeZone(signedIn: boolean) {
  const client = useQueryClient();
  const settings = useQuery<UserSettingsView>({ queryKey: SETTINGS_KEY, enabled: signedIn });
  const asked = useRef(false);
  useEffect(() => {
    if (asked.current || !settings.data || settings.data.timeZone !== null) return;
    const timeZone = browserTimeZone();
    if (!timeZone) return;
    asked.current = true;
    apiJson<UserSettingsView>('PATCH', '/api/settings', { timeZone })
      .then((changed) => client.setQueryData(SETTINGS_KEY, changed))
      .catch(() => undefined); // the next page load asks again
  }, [settings.data, client]);
}
