/**
 * The two-sided 95% quantile of Student's t distribution (t₀.₉₇₅) for the degrees of freedom the forecast can have:
 * n − 2 for n daily means, n from FORECAST_MIN_DAYS (7: 5 df) to the days of its window and a day or two rated
 * ahead in a zone west of the present one (at most 58: 56 df). The figures are scipy.stats.t.ppf(0.975, df)
 * (checked with mpmath's incomplete beta) to four decimals; analytics.spec.ts checks each against the t
 * distribution's own CDF, worked out by integration. 1.96 (the normal's) is the limit for many points: for 7 it
 * made the band 24% narrower than the 95% it claims.
 */
const FIRST_DF = 5;
const T975 = [
  2.5706, 2.4469, 2.3646, 2.306, 2.2622, 2.2281, 2.201, 2.1788, 2.1604, 2.1448, // 5–14
  2.1314, 2.1199, 2.1098, 2.1009, 2.093, 2.086, 2.0796, 2.0739, 2.0687, 2.0639, // 15–24
  2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423, 2.0395, 2.0369, 2.0345, 2.0322, // 25–34
  2.0301, 2.0281, 2.0262, 2.0244, 2.0227, 2.0211, 2.0195, 2.0181, 2.0167, 2.0154, // 35–44
  2.0141, 2.0129, 2.0117, 2.0106, 2.0096, 2.0086, 2.0076, 2.0066, 2.0057, 2.0049, // 45–54
  2.004, 2.0032, 2.0025, 2.0017, 2.001, 2.0003, // 55–60
];
export const T975_DF = { first: FIRST_DF, last: FIRST_DF + T975.length - 1 } as const;

/**
 * t₀.₉₇₅ for `df` degrees of freedom. Past the table, its last figure: a little wider than the exact one (the
 * quantile falls with df), so the band never claims more than it has.
 */
export function studentT975(df: number): number {
  if (!Number.isInteger(df) || df < FIRST_DF) throw new RangeError(`no t quantile for ${df} degrees of freedom (at least ${FIRST_DF})`);
  return T975[Math.min(df, T975_DF.last) - FIRST_DF];
}
