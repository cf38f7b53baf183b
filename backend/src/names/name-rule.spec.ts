import { acceptedNameOrNull, nameProblem, normalizeName } from './name-rule';

const refused = [
  ['a right-to-left override', 'Ada\u202Egnp.exe'],
  ['a left-to-right isolate', '\u2066Ada\u2069'],
  ['a right-to-left mark', 'Ada\u200F'],
  ['a zero-width space', 'A\u200Bda'],
  ['a zero-width non-joiner', 'A\u200Cda'],
  ['a lone zero-width joiner', 'A\u200Dda'],
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
];

describe('the name rule', () => {
  it.each(refused)('refuses %s, naming the field', (_label, value) => {
    expect(nameProblem(value, 'name')).toBe('name must not contain control, direction-changing or invisible characters');
    expect(nameProblem(value, 'firstName')).toMatch(/^firstName /);
  });

  it.each([
    ['plain Latin', 'Ada Lovelace'],
    ['accents', 'Zoë Ångström'],
    ['Arabic (right-to-left by itself, no override)', 'عائلة'],
    ['Hebrew', 'משפחה'],
    ['CJK', '家族'],
    ['an emoji', 'Book club 📚'],
    ['an emoji joined by ZWJ', 'Family \u{1F468}\u200D\u{1F469}\u200D\u{1F467}'],
    ['a skin-toned ZWJ emoji', 'Team \u{1F469}\u{1F3FD}\u200D\u{1F4BB}'],
    ['a flag', 'Team 🇫🇷'],
  ])('accepts %s', (_label, value) => {
    expect(nameProblem(value, 'name')).toBeNull();
  });

  it('allows line breaks and tabs in multi-line text, and nothing else invisible', () => {
    expect(nameProblem('Thinking of you.\r\nLove,\tAda', 'message', { multiline: true })).toBeNull();
    expect(nameProblem('Thinking of you\u202E', 'message', { multiline: true })).toMatch(/^message must not contain/);
    expect(nameProblem('a\u000Bb', 'message', { multiline: true })).not.toBeNull();
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
