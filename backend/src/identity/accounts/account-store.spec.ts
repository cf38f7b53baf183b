import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AccountStore } from './account-store';

describe('AccountStore: a password reset', () => {
  let dir: string;
  let store: AccountStore;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'joy-accounts-'));
    store = new AccountStore(join(dir, 'accounts.sqlite'));
  });
  afterEach(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const account = (id: string) => ({ id, emailHash: `hash-${id}`, email: 'sealed', firstName: 'sealed', passwordHash: 'old', createdAt: '2026-11-27T08:00:00.000Z' });
  const passkey = (credentialId: string, accountId: string) => ({
    credentialId,
    accountId,
    publicKey: Buffer.from('key'),
    counter: 0,
    transports: ['internal'],
    createdAt: '2026-11-27T08:00:00.000Z',
  });

  it('sets the password, uses up the links and removes the account’s passkeys (no other way in stays); others keep theirs', () => {
    store.insert(account('a1'));
    store.insert(account('a2'));
    store.addPasskey(passkey('squatter-key', 'a1'));
    store.addPasskey(passkey('other-key', 'a2'));
    store.addResetToken('token-hash', 'a1', Date.now() + 60_000);

    expect(store.resetPassword('token-hash', 'new')).toBe('a1');
    expect(store.byId('a1')?.passwordHash).toBe('new');
    expect(store.passkeysOf('a1')).toEqual([]);
    expect(store.passkeysOf('a2').map((p) => p.credentialId)).toEqual(['other-key']);
    expect(store.resetPassword('token-hash', 'again')).toBeNull();
  });
});
