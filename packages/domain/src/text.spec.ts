import { characterCount, cutToLength, fitsLength, UNITS_PER_CHARACTER } from './text';

describe('text lengths, as people count characters', () => {
  it('counts an emoji, a flag, a skin tone, a family and an accented letter as one character each', () => {
    for (const one of ['a', 'é', 'e\u0301', '🙂', '❤️', '👍🏽', '👨‍👩‍👧', '🇫🇷']) expect(characterCount(one)).toBe(1);
    expect(characterCount('Feeling 🙂 today ❤️')).toBe(17);
    expect(characterCount('')).toBe(0);
  });

  it('lets a limit of 10 hold ten emoji, and no more, even the longest ones', () => {
    expect(fitsLength('🙂'.repeat(10), 10)).toBe(true);
    expect(fitsLength('👍🏽'.repeat(10), 10)).toBe(true);
    // A family, a couple with skin tones, England's flag (a subdivision flag, 14 units).
    for (const long of ['👨‍👩‍👧‍👦', '👩🏻‍❤️‍💋‍👨🏼', '🏴󠁧󠁢󠁥󠁮󠁧󠁿']) expect(fitsLength(long.repeat(10), 10)).toBe(true);
    expect(fitsLength('🏴󠁧󠁢󠁥󠁮󠁧󠁿'.repeat(11), 10)).toBe(false);
    expect(fitsLength('🙂'.repeat(11), 10)).toBe(false);
    expect(fitsLength('a'.repeat(10), 10)).toBe(true);
    expect(fitsLength('a'.repeat(11), 10)).toBe(false);
  });

  it('bounds what is stored: one character of many combining marks does not pass a short limit', () => {
    const heavy = `a${'\u0301'.repeat(10 * UNITS_PER_CHARACTER)}`;
    expect(characterCount(heavy)).toBe(1);
    expect(fitsLength(heavy, 10)).toBe(false);
  });

  it('cuts a longer paste to the limit, never inside a character', () => {
    expect(cutToLength('🙂'.repeat(12), 10)).toBe('🙂'.repeat(10));
    expect(cutToLength('ab👨‍👩‍👧cd', 3)).toBe('ab👨‍👩‍👧');
    expect(cutToLength('short', 10)).toBe('short');
    // Within the characters but past the units: cut where the units end, on a character's edge.
    const heavy = `a${'\u0301'.repeat(UNITS_PER_CHARACTER * 2)}`.repeat(10);
    const cut = cutToLength(heavy, 10);
    expect(cut.length).toBeLessThanOrEqual(10 * UNITS_PER_CHARACTER);
    expect(fitsLength(cut, 10)).toBe(true);
    expect(heavy.startsWith(cut) && cut.length % (1 + UNITS_PER_CHARACTER * 2)).toBe(0);
    expect(characterCount(cut)).toBe(Math.floor((10 * UNITS_PER_CHARACTER) / (1 + UNITS_PER_CHARACTER * 2)));
  });
});
