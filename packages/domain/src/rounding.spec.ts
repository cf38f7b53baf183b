import fc from 'fast-check';
import { dayScoresOf } from './rating-days';
import { noRatingTotals, summaryOfTotals } from './rating-summary';
import { roundRatio } from './score';

/**
 * Every mean the app shows, against exact rational rounding (BigInt), half up: the rule of roundRatio. The sums are
 * drawn so that many means are exact halves, the only place where rounding on floats went wrong.
 */
const exactHalfUp = (numerator: number, denominator: number, decimals: number): number => {
  const scale = 10n ** BigInt(decimals);
  const [n, d] = [BigInt(numerator), BigInt(denominator)];
  return Number((2n * n * scale + d) / (2n * d)) / Number(scale);
};
const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

/**
 * A sum of `count` scores, each `perScore` units (1: factors, 10: overall scores in tenths) between 1 and 5: half the
 * time one whose mean is an exact half at `decimals` decimals, when the count allows any.
 */
const sumOf = (count: number, perScore: number, decimals: number) => {
  const denominator = perScore * count;
  const [low, high] = [denominator, 5 * denominator];
  const uniform = fc.integer({ min: low, max: high });
  // numerator / denominator = (2k + 1) / (2·10^decimals) is a whole numerator only as an odd multiple of this step.
  const g = gcd(2 * 10 ** decimals, denominator);
  if (((2 * 10 ** decimals) / g) % 2 === 0) return uniform;
  const step = denominator / g;
  const half = fc.integer({ min: Math.ceil(low / step), max: Math.floor(high / step) }).map((m) => (m % 2 === 1 ? m : m + 1) * step).filter((n) => n <= high);
  return fc.oneof(uniform, half);
};

const cases = (perScore: number, decimals: number) =>
  fc.integer({ min: 1, max: 4000 }).chain((count) => sumOf(count, perScore, decimals).map((numerator) => ({ count, numerator })));

describe('means are rounded as exact fractions would be, half away from zero', () => {
  it('roundRatio, to one and two decimals, of factor sums and of overall sums in tenths (property)', () => {
    for (const [perScore, decimals] of [[1, 1], [1, 2], [10, 1], [10, 2]]) {
      fc.assert(
        fc.property(cases(perScore, decimals), ({ count, numerator }) => roundRatio(numerator, perScore * count, decimals) === exactHalfUp(numerator, perScore * count, decimals)),
        { numRuns: 5_000 },
      );
    }
  });

  it('the summary\'s averages and a calendar day\'s score (property)', () => {
    const totals = fc.integer({ min: 1, max: 4000 }).chain((count) =>
      fc.record({ count: fc.constant(count), overallTenths: sumOf(count, 10, 1), relationships: sumOf(count, 1, 1), joy: sumOf(count, 1, 1) }),
    );
    fc.assert(
      fc.property(totals, (t) => {
        const { averages } = summaryOfTotals({ ...noRatingTotals(), ...t, daysTracked: 1 }, { from: null, to: null });
        const [day] = dayScoresOf([{ day: '2026-11-27', count: t.count, overallTenths: t.overallTenths }]);
        const overall = exactHalfUp(t.overallTenths, 10 * t.count, 1);
        return averages.overall === overall && day.overallScore === overall && averages.relationships === exactHalfUp(t.relationships, t.count, 1) && averages.joy === exactHalfUp(t.joy, t.count, 1);
      }),
      { numRuns: 10_000 },
    );
  });

  it('finds no exact half rounded down among all sums of up to 200 ratings (one decimal) and 40 (two)', () => {
    const wrong: string[] = [];
    const check = (numerator: number, denominator: number, decimals: number) => {
      if (roundRatio(numerator, denominator, decimals) !== exactHalfUp(numerator, denominator, decimals)) wrong.push(`${numerator}/${denominator}`);
    };
    for (let count = 1; count <= 200; count++) for (let tenths = 10 * count; tenths <= 50 * count; tenths++) check(tenths, 10 * count, 1);
    for (let count = 1; count <= 40; count++) for (let sum = count; sum <= 5 * count; sum++) check(sum, count, 2);
    expect(wrong).toEqual([]);
  });
});
