import { rmSync } from 'node:fs';
import { api, startTestApp, TestApp } from '../testing/app-harness';
import { signInWithPassword, signUp } from './dev-sign-in-client';

jest.setTimeout(60_000);

// A review (11-27): the built-in sign-in's identity links were keyed by its address (PUBLIC_URL/oidc), so moving Joy
// to another host, port or scheme (behind the TLS proxy, as the README says) gave everyone a new, empty account.
describe('the built-in sign-in after PUBLIC_URL changes', () => {
  let first: TestApp;
  let moved: TestApp | null = null;
  afterAll(async () => {
    await moved?.destroy();
    rmSync(first.config.dataDir, { recursive: true, force: true });
  });

  it('signs everyone in to the account they had, with their data', async () => {
    first = await startTestApp({ AUTH_DEV_LOGIN: '0' });
    const person = { firstName: 'Mo', email: 'mo.moves@example.com', password: 'Correct-horse-42x' };
    const cookie = await signUp(first.baseUrl, person);
    const before = (await api(first.baseUrl, cookie).get('/api/auth/user')).body;
    const rating = { relationships: 4, health: 4, purpose: 4, growth: 4, joy: 4 };
    expect((await api(first.baseUrl, cookie).post('/api/joy-ratings', rating)).status).toBe(201);
    await first.stop();

    // The same data directory at another address (another port: PUBLIC_URL follows it).
    moved = await startTestApp({ AUTH_DEV_LOGIN: '0', DATA_DIR: first.config.dataDir });
    expect(moved.baseUrl).not.toBe(first.baseUrl);
    const again = await signInWithPassword(moved.baseUrl, person.email, person.password);
    expect(again.cookie).not.toBeNull();
    expect((await api(moved.baseUrl, again.cookie!).get('/api/auth/user')).body).toMatchObject({ id: before.id, firstName: 'Mo' });
    expect((await api(moved.baseUrl, again.cookie!).get('/api/joy-ratings')).body).toHaveLength(1);
  });
});
