import { createECDH } from 'node:crypto';
import type { KeyStore } from '../identity/key-store';

/*
 * The install's VAPID key pair (RFC 8292), with which push services know that reminders come from this install.
 * Given by VAPID_PUBLIC_KEY / VAPID_PRIVATE_KEY (base64url, as `npx web-push generate-vapid-keys` prints them),
 * or else generated once per install and kept in the key store beside the lookup secret (keys.sqlite in DATA_DIR,
 * or MongoDB's user-keys): the api, which hands out the public key, and the worker, which signs with the private
 * one, then agree even where each has a DATA_DIR of its own (docker-compose.yml). A P-256 private key is 32
 * random bytes, which is what the key store makes.
 */

export const VAPID_KEY_ID = 'install:vapid-private-key';

export interface VapidKeys {
  publicKey: string;
  privateKey: string;
  /** mailto: or https: contact the push services may use (VAPID_SUBJECT; else PUBLIC_URL when https). */
  subject: string;
}

/** The public key (uncompressed point, base64url) of a P-256 private key, or null when it is not one. */
export function vapidPublicKeyOf(privateKey: Buffer): string | null {
  if (privateKey.length !== 32) return null;
  try {
    const ecdh = createECDH('prime256v1');
    ecdh.setPrivateKey(privateKey);
    return ecdh.getPublicKey().toString('base64url');
  } catch {
    return null;
  }
}

/** What the environment says about Web Push (config.ts reads it at start and refuses a wrong value by name). */
export interface PushConfig {
  /** PUSH_ALLOW_INSECURE_ENDPOINTS=1: http and loopback push endpoints (tests only). */
  allowInsecureEndpoints: boolean;
  subject: string;
  /** VAPID_PUBLIC_KEY / VAPID_PRIVATE_KEY when given; else the install's own pair from the key store. */
  given: { publicKey: string; privateKey: string } | null;
}

/** Reads and checks PUSH_ALLOW_INSECURE_ENDPOINTS, VAPID_SUBJECT, VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY. */
export function pushConfig(env: NodeJS.ProcessEnv, publicUrl: string): PushConfig {
  const subject = env.VAPID_SUBJECT || (publicUrl.startsWith('https://') ? publicUrl : 'mailto:reminders@joy.invalid');
  if (!/^(mailto:\S+@\S+|https:\/\/\S+)$/.test(subject)) {
    throw new Error(`VAPID_SUBJECT must be a mailto: address or an https: URL (the push services' contact for this install), got ${subject}`);
  }
  const { VAPID_PUBLIC_KEY: givenPublic, VAPID_PRIVATE_KEY: givenPrivate } = env;
  let given: PushConfig['given'] = null;
  if (givenPublic || givenPrivate) {
    if (!givenPublic || !givenPrivate) throw new Error('Set both VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY, or neither (the install then generates its own pair)');
    const derived = /^[A-Za-z0-9_-]{43}$/.test(givenPrivate) ? vapidPublicKeyOf(Buffer.from(givenPrivate, 'base64url')) : null;
    if (!derived) throw new Error('VAPID_PRIVATE_KEY is not a P-256 private key in base64url (43 characters, as `npx web-push generate-vapid-keys` prints it)');
    if (derived !== givenPublic) throw new Error('VAPID_PUBLIC_KEY is not the public key of VAPID_PRIVATE_KEY');
    given = { publicKey: givenPublic, privateKey: givenPrivate };
  }
  const flag = env.PUSH_ALLOW_INSECURE_ENDPOINTS;
  if (flag !== undefined && flag !== '' && flag !== '0' && flag !== '1') throw new Error(`PUSH_ALLOW_INSECURE_ENDPOINTS must be 0 or 1, got ${flag}`);
  return { allowInsecureEndpoints: flag === '1', subject, given };
}

/** The install's VAPID keys: the given ones, else the key store's (created at first use). */
export async function loadVapidKeys(push: PushConfig, keys: KeyStore): Promise<VapidKeys> {
  if (push.given) return { ...push.given, subject: push.subject };
  const stored = await keys.keyFor(VAPID_KEY_ID);
  if (!stored) throw new Error(`The install's VAPID key (${VAPID_KEY_ID}) was destroyed in the key store: restore the key store from a backup, or set VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY`);
  const publicKey = vapidPublicKeyOf(stored);
  if (!publicKey) {
    throw new Error(`The install's VAPID key (${VAPID_KEY_ID}) in the key store is not a P-256 private key: restore the key store from a backup, or set VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY`);
  }
  return { publicKey, privateKey: stored.toString('base64url'), subject: push.subject };
}
