import { FACTOR_NAMES, FACTORS, isFactorScore } from './factors';
import { meanScore, overallScore, roundToOneDecimal } from './score';

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
});
