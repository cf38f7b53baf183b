import { InMemoryReadModelStore } from '../read-models/in-memory-read-model-store';
import { recorded } from '../testing/events';
import { applyEvent } from './pipeline/applier';
import { PROJECTIONS } from './projections';

const users = PROJECTIONS.find((p) => p.name === 'users')!;
const registered = recorded('UserRegistered', { userId: 'u1', issuer: 'iss', subject: 'sub', email: 'ada@example.com', firstName: 'Ada', profileImageUrl: null }, 1);
const updated = recorded('UserProfileUpdated', { userId: 'u1', email: 'ada@lovelace.org', firstName: 'Ada', profileImageUrl: 'https://img/ada.png' }, 2);

describe('user-profiles projection', () => {
  it('creates the profile at registration and follows profile updates', async () => {
    const store = new InMemoryReadModelStore();
    await applyEvent(store, users, registered);
    await applyEvent(store, users, updated);
    expect(await store.get('user-profiles', 'u1')).toMatchObject({
      id: 'u1', email: 'ada@lovelace.org', firstName: 'Ada', profileImageUrl: 'https://img/ada.png', registeredAt: registered.metadata.occurredAt,
    });
  });

  it('gives the same document when events are applied twice', async () => {
    const store = new InMemoryReadModelStore();
    for (const e of [registered, updated]) await applyEvent(store, users, e);
    const once = await store.get('user-profiles', 'u1');
    for (const e of [registered, updated]) await applyEvent(store, users, e);
    expect(await store.get('user-profiles', 'u1')).toEqual(once);
  });
});
