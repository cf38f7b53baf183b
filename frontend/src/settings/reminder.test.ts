import { isTodayRated } from './reminder';

describe('whether today is rated (the reminder card)', () => {
  const now = new Date('2026-03-11T01:30:00Z'); // the 10th in Los Angeles, the 11th in Paris

  it('counts the day in the person\'s zone', () => {
    const ratings = [{ createdAt: '2026-03-10T20:00:00Z' }];
    expect(isTodayRated(ratings, 'America/Los_Angeles', now)).toBe(true);
    expect(isTodayRated(ratings, 'Europe/Paris', now)).toBe(false);
  });

  it('uses a rating\'s own day when it has one (a missed day rated today is not today)', () => {
    expect(isTodayRated([{ createdAt: '2026-03-11T01:00:00Z', day: '2026-03-09' }], 'Europe/Paris', now)).toBe(false);
    expect(isTodayRated([{ createdAt: '2026-03-09T01:00:00Z', day: '2026-03-11' }], 'Europe/Paris', now)).toBe(true);
  });

  it('is false without ratings', () => {
    expect(isTodayRated([], 'UTC', now)).toBe(false);
  });
});
