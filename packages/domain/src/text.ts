/**
 * Text limits count characters as people see them: grapheme clusters, so that an emoji (🙂, ❤️, 👍🏽, 👨‍👩‍👧), a flag or a
 * letter with its accents counts one, in the counters under the fields and in the server's checks alike. What is
 * stored stays bounded too: a text may hold at most UNITS_PER_CHARACTER UTF-16 units per character allowed, so that
 * one "character" of hundreds of combining marks cannot grow a note. 16 is more than any emoji takes (the longest,
 * a couple with skin tones or a subdivision flag, take 14–15): a text of emoji only is always within it.
 */
export const UNITS_PER_CHARACTER = 16;

/** The longest display name (first name) a person can have. */
export const DISPLAY_NAME_MAX = 80;

// Made when first needed. A browser without Intl.Segmenter (before Firefox 125) counts code points instead: never
// fewer than the server's characters, so it only ever stops a person earlier than the server would.
let graphemes: Intl.Segmenter | null | undefined;

/** The characters of `text`, as people see them. */
function charactersOf(text: string): string[] {
  graphemes ??= typeof Intl.Segmenter === 'function' ? new Intl.Segmenter('en', { granularity: 'grapheme' }) : null;
  return graphemes ? Array.from(graphemes.segment(text), (s) => s.segment) : Array.from(text);
}

/** How many characters a person sees in `text`. */
export function characterCount(text: string): number {
  return charactersOf(text).length;
}

/** The first character a person sees in `text` (an emoji whole, not half of it), upper-cased: an avatar's letter. */
export function initialOf(text: string): string {
  return (charactersOf(text.trim())[0] ?? '').toUpperCase();
}

/** Whether `text` is within a limit of `max` characters (and its bound in UTF-16 units). */
export function fitsLength(text: string, max: number): boolean {
  // Every character is at least one unit: a text of no more units than the limit is within it, uncounted.
  if (text.length <= max) return true;
  return text.length <= max * UNITS_PER_CHARACTER && characterCount(text) <= max;
}

/** The longest start of `text` within a limit of `max` characters: what a field keeps of a longer paste. */
export function cutToLength(text: string, max: number): string {
  if (fitsLength(text, max)) return text;
  let cut = '';
  let count = 0;
  for (const segment of charactersOf(text)) {
    if (count === max || cut.length + segment.length > max * UNITS_PER_CHARACTER) break;
    cut += segment;
    count++;
  }
  return cut;
}
