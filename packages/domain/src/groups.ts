/** Groups (tribes): what the browser and the server agree on about names and invite codes. */

/** The longest group name and description, in characters as people count them (text.ts). */
export const GROUP_NAME_MAX = 80;
export const GROUP_DESCRIPTION_MAX = 500;

/**
 * Codes are entered case-insensitively and as people write them down: spaces and dashes anywhere ("XCFF-UCGQ",
 * "xcff ucgq", a phone's en dash) are dropped, then the code is upper-cased, the form in which it was issued.
 */
export function normalizeInviteCode(input: string): string {
  return input.replace(/[\s\-\u2010-\u2015\u2212]+/g, '').toUpperCase();
}
