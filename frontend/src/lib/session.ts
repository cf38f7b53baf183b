import { TOASTS, toast } from './toast';

export const LOGIN_URL = '/api/login';

/** Sign-in that comes back to `returnTo` (a path of this app, e.g. "/insights"), or to Home without one. */
export function loginUrl(returnTo?: string): string {
  return returnTo && returnTo !== '/' ? `${LOGIN_URL}?returnTo=${encodeURIComponent(returnTo)}` : LOGIN_URL;
}

/** The page being looked at, to come back to after signing in. */
export function currentPath(): string {
  return window.location.pathname + window.location.search;
}
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
 * The session is missing or expired: toast "Unauthorized" and go to /api/login after 500 ms, coming back to
 * this page once signed in again.
 * Called once however many requests fail at the same time.
 */
export function handleUnauthorized(): void {
  if (redirecting) return;
  redirecting = true;
  toast(TOASTS.unauthorized);
  const here = currentPath();
  setTimeout(() => browser.navigate(loginUrl(here)), LOGIN_REDIRECT_DELAY_MS);
}

/** For tests only. */
export function resetUnauthorizedForTests(): void {
  redirecting = false;
}
