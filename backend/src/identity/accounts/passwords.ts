import { hash, verify } from '@node-rs/argon2';
import { isCommonPassword } from './common-passwords';

export const MIN_PASSWORD_LENGTH = 10;
/** argon2 hashes whatever it gets; a megabyte of password would only cost the server time. */
export const MAX_PASSWORD_LENGTH = 200;

/** Why a new password is refused, in the words the form shows; null when it is accepted. */
export function passwordProblem(password: string, email: string): string | null {
  if (password === '') return `Enter a password of at least ${MIN_PASSWORD_LENGTH} characters.`;
  if (password.length < MIN_PASSWORD_LENGTH) return `Password must be at least ${MIN_PASSWORD_LENGTH} characters.`;
  if (password.length > MAX_PASSWORD_LENGTH) return `Password can be at most ${MAX_PASSWORD_LENGTH} characters.`;
  const lower = password.toLowerCase();
  // Said as it is: "too common" would puzzle someone whose password is their own (uncommon) address.
  if (email !== '' && lower === email) return 'Your password must not be your e-mail address.';
  if (email.includes('@') && lower === email.split('@')[0]) return 'Your password must not be the part of your e-mail address before the @.';
  if (isCommonPassword(password)) return 'This password is too common or easy to guess. Choose a longer, less predictable one.';
  return null;
}

/**
 * Why a new password and its confirmation are refused (Create account, a reset link), or null. Both fields come
 * back empty (a page never holds a password), so a mismatch is said at the first of them, where retyping starts.
 */
export function newPasswordProblem(password: string, confirm: string, email: string): string | null {
  return passwordProblem(password, email) ?? (confirm !== password ? PASSWORDS_DIFFER : null);
}

export const PASSWORDS_DIFFER = 'The two passwords did not match. Type your password in both fields again.';

/**
 * argon2id with the library's defaults (19 MiB, 2 passes, 1 lane: OWASP's recommended minimum), as a PHC string
 * that carries its own salt and parameters, so they can be raised later without breaking stored hashes.
 */
export function hashPassword(password: string): Promise<string> {
  return hash(password);
}

/** A hash of nothing anyone knows: an unknown e-mail is checked against it, so it costs the same time as a known one. */
let decoy: Promise<string> | null = null;

/** Whether the password matches; with no stored hash (no such account) it spends the same time and answers false. */
export async function checkPassword(stored: string | null, password: string): Promise<boolean> {
  const against = stored ?? (await (decoy ??= hash(`decoy-${Math.random()}-${Date.now()}`)));
  // argon2's verify recomputes the hash and compares it in constant time.
  const matches = await verify(against, password).catch(() => false);
  return stored !== null && matches;
}
