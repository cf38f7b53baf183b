import { createHmac } from 'node:crypto';
import type { KeyStore } from './key-store';

/**
 * The install's lookup secret: kept in the key store beside the people's keys (keys.sqlite, or MongoDB's
 * `user-keys`), created at first use. Lookups from an e-mail or a provider subject to an account go through an
 * HMAC under it, so that nothing at rest leads from an e-mail to an account without this install's keys (a copy
 * of the events alone cannot be searched for an address), and an install's hashes mean nothing on another.
 */
export const LOOKUP_SECRET_ID = 'install:lookup-secret';

export type LookupHash = (purpose: string, value: string) => string;

export async function lookupHasher(keys: KeyStore): Promise<LookupHash> {
  const secret = await keys.keyFor(LOOKUP_SECRET_ID);
  if (!secret) throw new Error(`The install's lookup secret (${LOOKUP_SECRET_ID}) was destroyed in the key store: restore keys.sqlite from a backup`);
  return (purpose, value) => createHmac('sha256', secret).update(`${purpose}\n${value}`).digest('base64url').slice(0, 32);
}
