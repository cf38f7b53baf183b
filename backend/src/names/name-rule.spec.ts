import { acceptedNameOrNull, nameProblem, normalizeName } from './name-rule';

const refused = [
  ['a right-to-left override', 'Ada\u202Egnp.exe'],
  ['a left-to-right isolate', '\u2066Ada\u2069'],
  ['a right-to-left mark', 'Ada\u200F'],
  ['a zero-width space', 'A\u200Bda'],
  ['a zero-width non-joiner', 'A\u200Cda'],
  ['a lone zero-width joiner', 'A\u200Dda'],
  ['a non-joiner between an Arabic and a Latin letter', 'علی\u200CAda'],
  ['a non-joiner after the last Arabic letter', 'علی\u200C'],
  ['a non-joiner between Arabic and Hebrew letters', 'ی\u200Cש'],
  ['a byte order mark', '\uFEFFAda'],
  ['a soft hyphen', 'A\u00ADda'],
  ['a null character', 'Ada\u0000'],
  ['a newline', 'Ada\nBob'],
  ['a tab', 'Ada\tBob'],
  ['an escape', 'Ada\u001b[31m'],
  ['a C1 control', 'Ada\u0085'],
  ['a line separator', 'Ada\u2028Bob'],
  ['a lone surrogate', 'Ada\uD800'],
  ['a tag character', 'Ada\u{E0041}'],
  ['a Hangul filler alone (reads as blank)', '\u3164'],
  ['two Hangul fillers', '\u3164\u3164'],
  ['a Hangul choseong filler', '\u115F'],
  ['a halfwidth Hangul filler', '\uFFA0'],
  ['a blank braille pattern', '\u2800'],
  ['a combining grapheme joiner', '\u034F'],
  ['a Hangul filler inside a name', 'Ada\u3164Lovelace'],
];

describe('the name rule', () => {
  it.each(refused)('refuses %s, naming the field', (_label, value) => {
    expect(nameProblem(value, 'name')).toBe('name must not contain control, direction-changing or invisible characters');
    expect(nameProblem(value, 'firstName')).toMatch(/^firstName /);
  });

  it.each([
    ['a lone combining accent', '\u0301'],
    ['two combining accents', '\u0301\u0301'],
  ])('refuses %s (nothing to see), naming the field', (_label, value) => {
    expect(nameProblem(value, 'firstName')).toBe('firstName must contain a letter, a digit or a symbol');
  });

  it.each([
    ['plain Latin', 'Ada Lovelace'],
    ['a heart with its emoji variation selector', 'Team \u2764\uFE0F'],
    ['Korean', '김민준'],
    ['a letter with a combining accent', 'Zoe\u0301'],
    ['accents', 'Zoë Ångström'],
    ['Arabic (right-to-left by itself, no override)', 'عائلة'],
    ['Hebrew', 'משפחה'],
    ['CJK', '家族'],
    ['an emoji', 'Book club 📚'],
    ['an emoji joined by ZWJ', 'Family \u{1F468}\u200D\u{1F469}\u200D\u{1F467}'],
    ['a skin-toned ZWJ emoji', 'Team \u{1F469}\u{1F3FD}\u200D\u{1F4BB}'],
    ['a flag', 'Team 🇫🇷'],
    // A review (11-27): a Persian name typed with the non-joiner was refused as a name.
    ['Persian with a non-joiner between letters', 'علی\u200Cرضا'],
    ['Sinhala with a joiner after a virama', 'ශ්\u200Dරී'],
    ['Devanagari with a non-joiner', 'क्\u200Cष'],
    ["a subdivision's flag (tag characters)", 'Team \u{1F3F4}\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}'],
  ])('accepts %s', (_label, value) => {
    expect(nameProblem(value, 'name')).toBeNull();
  });

  it('allows line breaks and tabs in multi-line text', () => {
    expect(nameProblem('Thinking of you.\r\nLove,\tAda', 'message', { multiline: true })).toBeNull();
  });

  // A review (11-27): a Persian note was refused for the non-joiner a Persian keyboard types.
  it.each([
    ['Persian with a zero-width non-joiner', 'امروز می\u200Cخواهم بیشتر بخوابم', 'shapes'],
    ['Sinhala with a zero-width joiner', 'ශ්\u200Dරී ලංකා', 'shapes'],
    ['Hebrew with a right-to-left mark', 'היום 5 קילומטר\u200F!', 'hidden'],
    ['Arabic with an Arabic letter mark', 'اليوم\u061C 5', 'hidden'],
    ['Thai with zero-width spaces', 'วันนี้\u200Bดีมาก', 'hidden'],
    ['a soft hyphen from a web page', 'Spazier\u00ADgang', 'hidden'],
    ['a word joiner', 'e\u2060mail', 'hidden'],
  ])('allows what writing needs in multi-line text: %s', (_label, value, inName) => {
    expect(nameProblem(value, 'note', { multiline: true })).toBeNull();
    // A name keeps refusing the invisible ones (they could make it pass for another), not a joiner that shapes letters.
    if (inName === 'hidden') expect(nameProblem(value, 'name')).not.toBeNull();
    else expect(nameProblem(value, 'name')).toBeNull();
  });

  it.each([
    ['a right-to-left override', 'Thinking of you\u202E'],
    ['an isolate', 'a\u2066b\u2069'],
    ['a vertical tab', 'a\u000Bb'],
    ['an escape sequence', 'a\u001b[31m'],
    ['a lone surrogate', 'a\uD800'],
    ['a line separator', 'a\u2028b'],
    ['a tag character outside a flag', 'a\u{E0041}'],
  ])('refuses in multi-line text what reorders or hides it: %s', (_label, value) => {
    expect(nameProblem(value, 'note', { multiline: true })).toBe('note must not contain control or direction-changing characters');
  });

  it('normalises to NFC and trims', () => {
    const decomposed = 'Zoe\u0308'; // e + combining diaeresis
    expect(normalizeName(`  ${decomposed} `)).toBe('Zo\u00EB');
    expect(normalizeName(decomposed)).toHaveLength(3);
  });

  it('keeps a claimed name only when the rule accepts it', () => {
    expect(acceptedNameOrNull(' Ada ', 80)).toBe('Ada');
    expect(acceptedNameOrNull('Ada\u202E', 80)).toBeNull();
    expect(acceptedNameOrNull('x'.repeat(81), 80)).toBeNull();
    expect(acceptedNameOrNull('   ', 80)).toBeNull();
    expect(acceptedNameOrNull(undefined, 80)).toBeNull();
  });
});
