import { scoreBand } from '../lib/score';
import { totalsOf } from '../dashboard/summary';
import { ratingsFrom, withOverall } from '../testing/ratings';
import {
  CATEGORY_COLORS,
  categoriesOf,
  insightsSummary,
  personalizedInsights,
  rankAreas,
  sevenDayAverage,
  trendWord,
} from './insights';

const kinds = (ratings: Parameters<typeof insightsSummary>[0]) => personalizedInsights(insightsSummary(ratings, 'UTC')).map((i) => i.kind);
const titles = (ratings: Parameters<typeof insightsSummary>[0]) => personalizedInsights(insightsSummary(ratings, 'UTC')).map((i) => i.title);

describe('category averages', () => {
  it('average each factor to one decimal, in form order, with the five fixed colours', () => {
    const averages = categoriesOf(totalsOf(ratingsFrom([{ relationships: 5, health: 2 }, { relationships: 4, health: 2 }, { relationships: 4, health: 1 }])));
    expect(averages.map((c) => [c.label, c.average])).toEqual([
      ['Relationships', 4.3],
      ['Health', 1.7],
      ['Purpose', 3],
      ['Growth', 3],
      ['Joy', 3],
    ]);
    expect(new Set(Object.values(CATEGORY_COLORS)).size).toBe(5);
    // Never mistaken for a score: every factor hue is at least 25° from the hue of every score band's colour.
    const hue = (hex: string) => {
      const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255);
      const max = Math.max(r, g, b);
      const d = max - Math.min(r, g, b);
      const h = max === r ? ((g - b) / d) % 6 : max === g ? (b - r) / d + 2 : (r - g) / d + 4;
      return (h * 60 + 360) % 360;
    };
    const apart = (a: number, b: number) => Math.min(Math.abs(a - b), 360 - Math.abs(a - b));
    const scoreHues = [1, 2.5, 3, 3.5, 4, 4.5].map((score) => hue(scoreBand(score).color));
    for (const color of Object.values(CATEGORY_COLORS)) for (const h of scoreHues) expect(apart(hue(color), h)).toBeGreaterThanOrEqual(25);
    expect(categoriesOf(totalsOf([]))).toEqual([]);
  });

  it('name every area tied at the top or the bottom, and none when all are level (never one both strongest and weakest)', () => {
    const labels = (areas: { label: string }[]) => areas.map((a) => a.label);
    const tied = rankAreas(categoriesOf(totalsOf(ratingsFrom([{ relationships: 4, health: 5, purpose: 5, growth: 2, joy: 2 }]))));
    expect([labels(tied.strongest), labels(tied.weakest), tied.level]).toEqual([['Health', 'Purpose'], ['Growth', 'Joy'], null]);
    const allEqual = rankAreas(categoriesOf(totalsOf(ratingsFrom([3]))));
    expect(allEqual).toEqual({ strongest: [], weakest: [], level: 3 });
    expect(rankAreas([])).toEqual({ strongest: [], weakest: [], level: null });
  });

  it('compare the one-decimal averages that are shown (4.26 and 4.34 are both 4.3: a tie)', () => {
    // Purpose 4.26 → 4.3 shown, Joy 4.34 → 4.3 shown: a tie, both named.
    const fifty = Array.from({ length: 50 }, (_, i) => ({ relationships: 1, health: 1, growth: 1, purpose: i < 13 ? 5 : 4, joy: i < 17 ? 5 : 4 }));
    const averages = categoriesOf(totalsOf(ratingsFrom(fifty)));
    expect(averages.find((c) => c.name === 'purpose')?.average).toBe(4.3);
    expect(averages.find((c) => c.name === 'joy')?.average).toBe(4.3);
    expect(rankAreas(averages).strongest.map((a) => a.label)).toEqual(['Purpose', 'Joy']);
  });
});

describe('7-Day Average', () => {
  it('is the mean of the latest 7 ratings (all when fewer)', () => {
    expect(sevenDayAverage(withOverall([5, 5, 5, 5, 5, 5, 5, 1, 1, 1]))).toBe(5);
    expect(sevenDayAverage(withOverall([4, 3]))).toBe(3.5);
    expect(sevenDayAverage([])).toBeNull();
  });

  it('comes with its difference against the overall average', () => {
    const s = insightsSummary(withOverall([5, 5, 5, 5, 5, 5, 5, 1, 1, 1]), 'UTC');
    expect(s.overallAverage).toBe(3.8);
    expect(s.sevenDayDifference).toBe(1.2);
    expect(insightsSummary(withOverall([3]), 'UTC').sevenDayDifference).toBe(0);
  });
});

describe('Recent Trend card', () => {
  it('names the direction', () => {
    expect(trendWord(0.2)).toBe('Improving');
    expect(trendWord(-0.2)).toBe('Declining');
    expect(trendWord(0)).toBe('Steady');
    expect(trendWord(null)).toMatch(/Rate again/);
  });
});

describe('Personalized Insights (SPEC §9)', () => {
  it('shows nothing without ratings', () => {
    expect(personalizedInsights(insightsSummary([], 'UTC'))).toEqual([]);
  });

  it('always has the strongest-area message', () => {
    const one = ratingsFrom([{ relationships: 4, health: 5, purpose: 4, growth: 4, joy: 4 }]);
    expect(kinds(one)).toEqual(['strongest-area']);
    expect(titles(one)).toEqual(['Your Strength: Health']);
    expect(personalizedInsights(insightsSummary(one, 'UTC'))[0].text).toBe(
      'Health is your strongest area at 5.0/5. Lean on it on the harder days.',
    );
  });

  it('names strengths together when they tie, and says so when all five are level ("All five areas are level at 3.0")', () => {
    const two = ratingsFrom([{ relationships: 4, health: 5, purpose: 4, growth: 4, joy: 5 }]);
    expect(titles(two)).toEqual(['Your Strengths: Health and Joy']);
    const level = personalizedInsights(insightsSummary(ratingsFrom([{ relationships: 4, health: 4, purpose: 4, growth: 4, joy: 4 }]), 'UTC'));
    expect(level.map((i) => i.title)).toEqual(['All Areas Level']);
    expect(level[0].text).toMatch(/^All five areas are level at 4\.0\./);
  });

  describe('Great Progress! (latest − previous > 0.3)', () => {
    it('fires at 0.4', () => {
      expect(kinds(withOverall([4.0, 3.6]).map((r) => ({ ...r, relationships: 4, health: 4, purpose: 4, growth: 4, joy: 4 })))).toContain('great-progress');
      expect(titles(withOverall([4.0, 3.6]))).toContain('Great Progress!');
    });
    it('does not fire at exactly 0.3 (also where float subtraction gives 0.30000000000000004)', () => {
      expect(kinds(withOverall([3.6, 3.3]))).not.toContain('great-progress');
      expect(kinds(withOverall([4.1, 3.8]))).not.toContain('great-progress');
      expect(kinds(withOverall([3.3, 3.0]))).not.toContain('great-progress');
    });
    it('does not fire for a drop or with one rating', () => {
      expect(kinds(withOverall([3.0, 4.0]))).not.toContain('great-progress');
      expect(kinds(withOverall([5.0]))).not.toContain('great-progress');
    });
  });

  describe('Growth Opportunity (weakest category average < 3.5)', () => {
    it('fires at 3.4 and names the weakest area', () => {
      const ratings = ratingsFrom([{ relationships: 5, health: 5, purpose: 5, growth: 4, joy: 3 }, { relationships: 5, health: 5, purpose: 5, growth: 4, joy: 4 }, { relationships: 5, health: 5, purpose: 5, growth: 4, joy: 3 }, { relationships: 5, health: 5, purpose: 5, growth: 4, joy: 3 }, { relationships: 5, health: 5, purpose: 5, growth: 4, joy: 4 }]);
      // Joy: (3+4+3+3+4)/5 = 3.4
      const insight = personalizedInsights(insightsSummary(ratings, 'UTC')).find((i) => i.kind === 'growth-opportunity');
      expect(insight?.text).toBe('Joy is your lowest area at 3.4/5. One small step there this week could lift your overall joy.');
    });
    it('does not fire at exactly 3.5', () => {
      const ratings = ratingsFrom([{ relationships: 4, health: 4, purpose: 4, growth: 4, joy: 4 }, { relationships: 4, health: 4, purpose: 4, growth: 4, joy: 3 }]);
      expect(insightsSummary(ratings, 'UTC').areas.weakest).toMatchObject([{ label: 'Joy', average: 3.5 }]);
      expect(kinds(ratings)).not.toContain('growth-opportunity');
    });
    it('names every weakest area when they tie', () => {
      const ratings = ratingsFrom([{ relationships: 5, health: 2, purpose: 5, growth: 2, joy: 5 }]);
      const insight = personalizedInsights(insightsSummary(ratings, 'UTC')).find((i) => i.kind === 'growth-opportunity');
      expect(insight?.text).toMatch(/^Health and Growth are your lowest areas at 2\.0\/5/);
    });
    it('says every area has room to grow when they are level below 3.5, without repeating the All Areas Level card', () => {
      const insights = personalizedInsights(insightsSummary(ratingsFrom([3]), 'UTC'));
      const growth = insights.find((i) => i.kind === 'growth-opportunity');
      expect(growth?.text).toBe('Every area has room to grow at 3.0/5. One small step in any of them this week could lift your overall joy.');
      const firstSentences = insights.map((i) => i.text.split('. ')[0]);
      expect(new Set(firstSentences).size).toBe(firstSentences.length);
    });
  });

  describe('Recent Improvement (7-day average − overall average > 0.3)', () => {
    it('fires at 0.4', () => {
      // Latest 7 = 4.0; overall of 14 = (7×4.0 + 7×3.2)/14 = 3.6 → difference 0.4.
      const ratings = withOverall([...Array(7).fill(4.0), ...Array(7).fill(3.2)]);
      const s = insightsSummary(ratings, 'UTC');
      expect([s.sevenDayAverage, s.overallAverage, s.sevenDayDifference]).toEqual([4.0, 3.6, 0.4]);
      expect(kinds(ratings)).toContain('recent-improvement');
      expect(personalizedInsights(s).find((i) => i.kind === 'recent-improvement')?.text).toBe(
        'Your last 7 ratings average 4.0, 0.4 above your overall average of 3.6.',
      );
      // On the free plan the ratings shown are the last 30 days': the average is said to be theirs.
      expect(personalizedInsights(s, 30).find((i) => i.kind === 'recent-improvement')?.text).toBe(
        'Your last 7 ratings average 4.0, 0.4 above your 30-day average of 3.6.',
      );
    });
    it('does not fire at exactly 0.3', () => {
      // Latest 7 = 3.9; overall = (7×3.9 + 7×3.3)/14 = 3.6 → difference 0.3.
      const ratings = withOverall([...Array(7).fill(3.9), ...Array(7).fill(3.3)]);
      expect(insightsSummary(ratings, 'UTC').sevenDayDifference).toBe(0.3);
      expect(kinds(ratings)).not.toContain('recent-improvement');
    });
    it('cannot fire with 7 or fewer ratings (the two averages are the same)', () => {
      expect(kinds(withOverall([5, 5, 5, 1, 1, 1, 1]))).not.toContain('recent-improvement');
    });
  });

  describe('Consistency Milestone (count ≥ 7 and a multiple of 7)', () => {
    it.each([
      [6, false],
      [7, true],
      [8, false],
      [13, false],
      [14, true],
      [21, true],
    ])('with %i ratings: %s', (count, shown) => {
      const ratings = withOverall(Array(count).fill(3));
      expect(kinds(ratings).includes('consistency-milestone')).toBe(shown);
    });
    it('says how many ratings', () => {
      const s = insightsSummary(withOverall(Array(14).fill(3)), 'UTC');
      expect(personalizedInsights(s).find((i) => i.kind === 'consistency-milestone')?.text).toMatch(/^You've recorded 14 ratings\./);
      // Of the free plan's window: not the whole history the Dashboard counts.
      expect(personalizedInsights(s, 30).find((i) => i.kind === 'consistency-milestone')?.text).toMatch(/^You've recorded 14 ratings in the last 30 days\./);
    });
  });

  it('lists the messages in SPEC order with the strongest area last', () => {
    // 14 ratings: latest 7 high, older 7 low; latest jumps by 1.0; Growth stays low.
    const high = { relationships: 5, health: 5, purpose: 5, growth: 2, joy: 5 };
    const prev = { relationships: 4, health: 4, purpose: 4, growth: 2, joy: 4 }; // overall 3.6 → latest 4.4: +0.8
    const low = { relationships: 2, health: 2, purpose: 2, growth: 2, joy: 2 };
    const ratings = ratingsFrom([high, prev, high, high, high, high, high, low, low, low, low, low, low, low]);
    expect(kinds(ratings)).toEqual(['great-progress', 'growth-opportunity', 'recent-improvement', 'consistency-milestone', 'strongest-area']);
  });
});
