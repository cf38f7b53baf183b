/**
 * A first name as people type it: NFC-normalised and trimmed; refused when empty, longer than 80 characters, or
 * holding characters that change how text around them looks (controls, bidirectional overrides, zero-width).
 * (Issue 15 brings one rule for every name in the app; this is the sign-up form's until it lands.)
 */
export const MAX_FIRST_NAME = 80;

const INVISIBLE_OR_CONTROL = /[\p{Cc}\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/u;

export function normaliseFirstName(raw: string): string {
  return raw.normalize('NFC').trim();
}

/** Why a first name is refused, in the form's words; null when accepted. */
export function firstNameProblem(name: string): string | null {
  if (name === '') return 'Enter your first name.';
  if ([...name].length > MAX_FIRST_NAME) return `First name can be at most ${MAX_FIRST_NAME} characters.`;
  if (INVISIBLE_OR_CONTROL.test(name)) return 'First name contains characters that are not allowed (control, direction or invisible characters).';
  return null;
}
