import { TOASTS, toast } from './toast';

export const LOGIN_URL = '/api/login';
export const LOGOUT_URL = '/api/logout';
export const LOGIN_REDIRECT_DELAY_MS = 500;

/** A full-page navigation to the server (sign in, sign out). Replaceable in tests. */
export const browser = {
  navigate(url: string): void {
    window.location.href = url;
  },
};

let redirecting = false;

/**
 * The session is missing or expired: toast "Unauthorized" and go to /api/login after 500 ms.
 * Called once however many requests fail at the same time.
 */
export function handleUnauthorized(): void {
  if (redirecting) return;
  redirecting = true;
  toast(TOASTS.unauthorized);
  setTimeout(() => browser.navigate(LOGIN_URL), LOGIN_REDIRECT_DELAY_MS);
}

/** For tests only. */
export function resetUnauthorizedForTests(): void {
  redirecting = false;
}
