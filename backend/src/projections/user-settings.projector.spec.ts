import { InMemoryReadModelStore } from '../read-models/in-memory-read-model-store';
import { recorded } from '../testing/events';
import { applyEvent } from './pipeline/applier';
import { PROJECTIONS } from './projections';
import { type UserSettingsDoc, userSettingsProjector } from './user-settings.projector';

const projection = PROJECTIONS.find((p) => p.name === 'user-settings')!;
const scores = { relationships: 3, health: 3, purpose: 3, growth: 3, joy: 3, overallScore: 3 };
const rated = (ratingId: string, submittedAt: string, position: number) => recorded('RatingSubmitted', { ratingId, userId: 'ada', ...scores, submittedAt }, position);
const withdrawn = (ratingId: string, latest: { ratingId: string; submittedAt: string; day?: string } | null, position: number) =>
  recorded('RatingWithdrawn', { ratingId, userId: 'ada', submittedAt: '2026-11-21T07:30:00.000Z', withdrawnAt: '2026-11-21T08:00:00.000Z', latest: latest && { ...latest, ...scores } }, position);
const latestDay = async (store: InMemoryReadModelStore) => (await store.get<UserSettingsDoc>(userSettingsProjector.collection, 'ada'))?.latestDay;

describe('user-settings projection: the latest day rated, for reminders', () => {
  it('goes back to the newest day left when today’s rating is withdrawn (today is unrated again), none when no rating is left', async () => {
    const store = new InMemoryReadModelStore();
    await applyEvent(store, projection, recorded('UserSettingsChanged', { userId: 'ada', timeZone: 'Europe/Paris', reminderTime: '20:00' }, 1));
    await applyEvent(store, projection, rated('r1', '2026-11-19T22:30:00.000Z', 2)); // 19 Nov 23:30 in Paris
    await applyEvent(store, projection, rated('r2', '2026-11-21T07:30:00.000Z', 3));
    expect(await latestDay(store)).toBe('2026-11-21');
    await applyEvent(store, projection, withdrawn('r2', { ratingId: 'r1', submittedAt: '2026-11-19T22:30:00.000Z' }, 4));
    expect(await latestDay(store)).toBe('2026-11-19');
    await applyEvent(store, projection, withdrawn('r1', null, 5));
    expect(await latestDay(store)).toBeNull();
    expect(await store.get<UserSettingsDoc>(userSettingsProjector.collection, 'ada')).toMatchObject({ reminderTime: '20:00', hasReminder: true });
  });

  it('goes back to the day of the rating left, not the day it was made (a missed day filled in today)', async () => {
    const store = new InMemoryReadModelStore();
    await applyEvent(store, projection, recorded('UserSettingsChanged', { userId: 'ada', timeZone: 'Europe/Paris', reminderTime: '20:00' }, 1));
    await applyEvent(store, projection, rated('r1', '2026-11-21T07:00:00.000Z', 2));
    await applyEvent(store, projection, recorded('RatingSubmitted', { ratingId: 'r2', userId: 'ada', ...scores, submittedAt: '2026-11-21T07:30:00.000Z', day: '2026-11-18' }, 3));
    expect(await latestDay(store)).toBe('2026-11-21');
    // Today's rating withdrawn: the one left was made today, but for the 18th, so today is unrated again.
    await applyEvent(store, projection, withdrawn('r1', { ratingId: 'r2', submittedAt: '2026-11-21T07:30:00.000Z', day: '2026-11-18' }, 4));
    expect(await latestDay(store)).toBe('2026-11-18');
  });

  it('puts a rating from before days were kept on its UTC day, as every other read model does, whatever the zone', async () => {
    const store = new InMemoryReadModelStore();
    await applyEvent(store, projection, recorded('UserSettingsChanged', { userId: 'ada', timeZone: 'America/Los_Angeles', reminderTime: '20:00' }, 1));
    await applyEvent(store, projection, rated('r1', '2026-11-28T03:00:00.000Z', 2)); // 27 Nov 19:00 in Los Angeles
    expect(await latestDay(store)).toBe('2026-11-28');
  });
});
