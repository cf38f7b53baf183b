import { join } from 'node:path';
import { SqliteEventStore } from '../event-store/sqlite-event-store';
import { api, signIn } from '../testing/app-harness';
import { AppProcess, startAppProcess } from '../bench/app-process';
import { waitUntil } from '../testing/wait';
import { manyRatingsBody as rating } from '../bench/rating-bodies';


/**
 * Nothing acknowledged is ever lost: the app is killed (SIGKILL, no shutdown) while people are saving
 * ratings; after a restart every rating that was answered 201 exists once in the events and the read models.
 */
jest.setTimeout(60_000);

describe('a crash while people are writing ratings', () => {
  let app: AppProcess;
  beforeAll(async () => {
    app = await startAppProcess({ RATE_LIMIT_WRITES_PER_MIN: '100000' });
  });
  afterAll(() => app.destroy());

  it('keeps every acknowledged rating, once', async () => {
    const people = await Promise.all(['a', 'b', 'c'].map((p) => signIn(app.baseUrl, `${p}@crash.example`, p.toUpperCase())));
    const acknowledged = new Map<string, string[]>(people.map((cookie) => [cookie, []]));
    let stop = false;
    const writer = async (cookie: string, n: number) => {
      for (let i = 0; !stop; i++) {
        try {
          const res = await api(app.baseUrl, cookie).post('/api/joy-ratings', rating(n + i));
          if (res.status === 201) acknowledged.get(cookie)!.push(res.body.id);
        } catch {
          return; // the connection died with the process
        }
      }
    };
    const writers = people.flatMap((cookie) => [0, 1, 2, 3].map((n) => writer(cookie, n)));
    // Kill the process while the writers are busy: once a few dozen writes were acknowledged.
    await waitUntil(() => [...acknowledged.values()].reduce((n, ids) => n + ids.length, 0) >= 30, 20_000);
    await app.stop('SIGKILL');
    stop = true;
    await Promise.all(writers);

    const total = [...acknowledged.values()].reduce((n, ids) => n + ids.length, 0);
    expect(total).toBeGreaterThan(20);

    const store = new SqliteEventStore(join(app.dataDir, 'events.sqlite'));
    const events = await store.readAll({ from: 0, limit: 1_000_000 });
    await store.close();
    const stored = events.filter((e) => e.type === 'RatingSubmitted').map((e) => e.data.ratingId as string);
    for (const ids of acknowledged.values()) {
      for (const id of ids) expect(stored.filter((s) => s === id)).toHaveLength(1);
    }

    await app.start();
    for (const [cookie, ids] of acknowledged) {
      const listed: string[] = (await api(app.baseUrl, cookie).get('/api/joy-ratings?limit=200')).body.map((r: { id: string }) => r.id);
      expect(new Set(listed).size).toBe(listed.length);
      expect(listed).toEqual(expect.arrayContaining(ids));
    }
  });
});
