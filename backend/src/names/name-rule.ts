import { ValidateBy, ValidationArguments } from 'class-validator';
import { fitsLength } from '@joy/domain';

/*
 * One rule for every name people see of each other (group names, display names, care messages where sensible):
 * the text is normalised to NFC and trimmed, and characters that let a name pretend to be another are refused:
 * control characters, direction overrides and isolates (U+202A–U+202E, U+2066–U+2069, marks), zero-width and
 * other invisible format characters (U+200B–U+200F, U+FEFF, U+00AD, tags), line/paragraph separators and lone
 * surrogates. A zero-width joiner is kept only inside an emoji sequence (👨‍👩‍👧), where it is visible, joiners
 * only between two letters of a script they shape, and tag characters only inside a flag. Text people write (notes, messages, descriptions) keeps what scripts need.
 */

/** Unicode categories Cc (controls), Cf (format: bidi, zero-width), Cs (lone surrogates), Zl/Zp (separators). */
const FORBIDDEN = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/u;
/** A ZWJ between two pictographs (after an optional variation selector or skin tone) joins an emoji. */
const EMOJI_ZWJ = /(\p{Extended_Pictographic}[\u{FE0F}\u{1F3FB}-\u{1F3FF}]?)\u200d(?=\p{Extended_Pictographic})/gu;
/** A black flag followed by tag characters and a cancel tag is a subdivision's flag (🏴󠁧󠁢󠁳󠁣󠁴󠁿 Scotland). */
const TAG_FLAG = /\u{1F3F4}[\u{E0020}-\u{E007E}]+\u{E007F}/gu;
/**
 * A non-joiner or joiner between two letters of one script that joins or forms conjuncts (Persian's علی‌رضا,
 * Sinhala's ශ්‍රී, Indic half forms) changes how the name looks, so it is part of the name there; anywhere else it
 * is invisible. Mixed scripts do not count: a joiner between an Arabic and a Latin letter changes nothing.
 */
const JOINING_SCRIPTS = ['Arabic', 'Syriac', 'Nko', 'Mongolian', 'Devanagari', 'Bengali', 'Gurmukhi', 'Gujarati', 'Oriya', 'Tamil', 'Telugu', 'Kannada', 'Malayalam', 'Sinhala'];
const SCRIPT_JOINERS = JOINING_SCRIPTS.map((s) => new RegExp(`(?<=\\p{Script=${s}}\\p{M}*)[\\u200C\\u200D](?=\\p{Script=${s}})`, 'gu'));
/**
 * Characters that show as nothing although they are letters or symbols (so not Cf): the Hangul fillers
 * (U+115F, U+1160, U+3164, U+FFA0), the combining grapheme joiner and the other default-ignorable code points, and
 * the blank braille pattern U+2800. A name of them reads as blank to everyone who sees it (a review, 11-28).
 * Variation selectors are default-ignorable too, but they choose how the character before them looks (❤️): kept.
 */
const BLANK_LOOKING = /(?![\u{FE00}-\u{FE0F}\u{E0100}-\u{E01EF}])[\p{Default_Ignorable_Code_Point}\u2800]/u;
/** What a name needs at least one of: a character that is neither a mark, a space, nor blank-looking. */
const VISIBLE_BASE = /(?![\u{FE00}-\u{FE0F}\u{E0100}-\u{E01EF}\u2800])[^\p{M}\p{Z}\p{Default_Ignorable_Code_Point}]/u;
/** In multi-line text (a note, a message, a description) a line break and a tab are allowed. */
const LINE_BREAKS = /\r\n|[\n\t]/g;
/**
 * And the invisible characters that writing needs, which a name is refused (they could make it pass for another):
 * zero-width space (Thai, Khmer and Burmese word breaks), non-joiner and joiner (Persian, Sinhala, Indic scripts),
 * the left-to-right, right-to-left and Arabic letter marks, the soft hyphen and the word joiner. What stays
 * refused in text is what reorders or hides it: controls, direction embeddings, overrides and isolates.
 */
const WRITING_MARKS = /[\u00AD\u061C\u200B-\u200F\u2060\uFEFF]/g;

export interface NameRuleOptions {
  /** Text rather than a name: allow line breaks, tabs and the invisible characters writing needs. */
  multiline?: boolean;
}

/** The stored form of a name: NFC, trimmed. */
export function normalizeName(value: string): string {
  return value.normalize('NFC').trim();
}

/**
 * The reason `value` (normalised: trimmed, so surrounding white space is no reason) is refused as the text of
 * `field`, or null when it is acceptable. Lengths are checked by each field's own rule, on the normalised text.
 */
export function nameProblem(value: string, field: string, options: NameRuleOptions = {}): string | null {
  let text = value.replace(EMOJI_ZWJ, '$1').replace(TAG_FLAG, '\u{1F3F4}');
  for (const joiner of SCRIPT_JOINERS) text = text.replace(joiner, '');
  if (options.multiline) text = text.replace(LINE_BREAKS, ' ').replace(WRITING_MARKS, '');
  if (FORBIDDEN.test(text) || (!options.multiline && BLANK_LOOKING.test(text))) {
    return options.multiline
      ? `${field} must not contain control or direction-changing characters`
      : `${field} must not contain control, direction-changing or invisible characters`;
  }
  if (!options.multiline && text !== '' && !VISIBLE_BASE.test(text)) return `${field} must contain a letter, a digit or a symbol`;
  return null;
}

/**
 * A name that comes from elsewhere (an identity provider's claims), where there is no one to answer a 400 to:
 * normalised, or null when the rule refuses it or it is longer than `max`, so that it is never shown.
 */
export function acceptedNameOrNull(value: string | null | undefined, max: number): string | null {
  if (typeof value !== 'string') return null;
  const name = normalizeName(value);
  return name !== '' && fitsLength(name, max) && nameProblem(name, 'name') === null ? name : null;
}

/**
 * Class-validator decorator for the name rule (strings only: the field's own decorators check type and length).
 * The 400 names the field: `<field> must not contain control, direction-changing or invisible characters`.
 */
export function IsCleanName(options: NameRuleOptions & { field?: string } = {}): PropertyDecorator {
  return ValidateBy({
    name: 'cleanName',
    validator: {
      validate: (value: unknown, args?: ValidationArguments) =>
        typeof value !== 'string' || nameProblem(normalizeName(value), options.field ?? args?.property ?? 'name', options) === null,
      defaultMessage: ({ value, property }: ValidationArguments) =>
        nameProblem(normalizeName(String(value)), options.field ?? property, options) ?? `${property} is not valid`,
    },
  });
}
