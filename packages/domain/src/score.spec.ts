import { FACTOR_NAMES, FACTORS, isFactorScore } from './factors';
import { meanScore, overallScore, roundRatio, roundToOneDecimal } from './score';

describe('factors and scores', () => {
  it('lists the five factors once, in order, with their labels', () => {
    expect(FACTORS.map((f) => f.name)).toEqual([...FACTOR_NAMES]);
    expect(FACTORS.map((f) => f.label)).toEqual(['Relationships', 'Health', 'Purpose', 'Growth', 'Joy']);
  });

  it('accepts whole numbers from 1 to 5 only', () => {
    expect([1, 5].every(isFactorScore)).toBe(true);
    expect([0, 6, 2.5, '3', NaN, null].some(isFactorScore)).toBe(false);
  });

  it('rounds the overall score half away from zero to one decimal, the same on server and browser', () => {
    expect(overallScore({ relationships: 5, health: 4, purpose: 4, growth: 3, joy: 5 })).toBe(4.2);
    expect(roundToOneDecimal(3.45)).toBe(3.5);
    expect(roundToOneDecimal(1.05)).toBe(1.1);
    expect(meanScore([3, 4])).toBe(3.5);
    expect(meanScore([])).toBeNull();
  });

  it('rounds a mean of whole numbers at an exact half up: 498 tenths over 12 ratings → 4.2, 338 over 8 → 4.23, 169 over 40 → 4.23', () => {
    expect(roundRatio(498, 120, 1)).toBe(4.2);
    expect(roundRatio(338, 80, 2)).toBe(4.23);
    expect(roundRatio(169, 40, 2)).toBe(4.23);
    expect(roundRatio(1, 3, 2)).toBe(0.33);
  });

  it('averages overall scores from their exact sum, so an exact half rounds up (12 ratings of mean 4.15 → 4.2)', () => {
    // The review's case: 11 × 4.2 + 3.6 = 49.8 over 12 = 4.15 exactly.
    expect(meanScore([...Array<number>(11).fill(4.2), 3.6])).toBe(4.2);
    // 12.6 / 4 = 3.15: summed as decimals, 12.599999999999998 / 4, shown as 3.1 (a 7-day average, a group's).
    expect(meanScore([1.4, 3.8, 4.2, 3.2])).toBe(3.2);
  });
});
