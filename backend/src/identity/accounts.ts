import { decideAndAppend, type DomainEvent } from '../event-store/decider';
import type { EventStore, RecordedEvent } from '../event-store/event-store.port';
import type { LookupHash } from './lookup-hash';
import {
  identityDecider,
  identityLinkDecider,
  IdentityLinkEvent,
  identityLinkStream,
  legacyIdentityLinkStream,
  newUserId,
  userIdFor,
} from './identity.decider';
import { ENCRYPTED_SCHEMA_VERSION, hasPersonalData, openRecorded, sealPersonalData } from './personal-data';

type UserStreamEvent = Parameters<typeof identityDecider.evolve>[1];
const plain = (e: RecordedEvent) => ({ type: e.type, data: e.data }) as unknown as UserStreamEvent;
const linkUpcast = (e: RecordedEvent) => ({ type: e.type, data: e.data }) as unknown as IdentityLinkEvent;

/**
 * How the user stream is read and written with the person's key: events with personal fields are decrypted on
 * read (v1 plaintext passes through, a destroyed key reads as null) and encrypted on write (schemaVersion 2).
 * `E` is the event type of the decider that folds the stream (identity, settings).
 */
export function userStreamCodec<E extends DomainEvent = UserStreamEvent>(key: Buffer | null) {
  return {
    upcast: (e: RecordedEvent) => ({ type: e.type, data: openRecorded(e, key).data }) as unknown as E,
    encode: (e: E) =>
      hasPersonalData(e.type)
        ? { data: sealPersonalData(e.type, e.data as unknown as Record<string, unknown>, key), schemaVersion: ENCRYPTED_SCHEMA_VERSION }
        : { data: e.data as unknown as Record<string, unknown>, schemaVersion: 1 },
  };
}

const linkState = async (store: EventStore, stream: string) =>
  (await store.readStream(stream)).map(linkUpcast).reduce(identityLinkDecider.evolve, identityLinkDecider.initialState);

/** The account an identity (issuer, subject) is linked to now, if any; links nothing (a password reset's sessions). */
export async function linkedAccount(store: EventStore, lookup: LookupHash, issuer: string, subject: string): Promise<string | null> {
  const linked = await linkState(store, identityLinkStream(lookup, issuer, subject));
  return linked.userId ?? (await linkState(store, legacyIdentityLinkStream(issuer, subject))).userId ?? null;
}

/**
 * The account an identity (issuer, subject) signs in to, through its link stream `identity-<keyed hash>`:
 * - linked: that account;
 * - not linked yet, but linked in the link stream of an install before keyed hashes (`identity-<sha256>`): that
 *   account, now linked under the keyed name (the upgrade carries people over at their next sign-in);
 * - not linked yet, and an account registered before links existed lives at the derived id (the hash): that one,
 *   so existing people keep their data;
 * - otherwise (first sign-in ever, or after the account was deleted): a new random id.
 * The link is appended with the stream's expected version, so two first sign-ins at once agree on one account.
 */
export async function resolveAccount(store: EventStore, lookup: LookupHash, issuer: string, subject: string, now = new Date()): Promise<string> {
  const stream = identityLinkStream(lookup, issuer, subject);
  const current = () => linkState(store, stream);
  const linked = await current();
  if (linked.userId) return linked.userId;

  const before = await linkState(store, legacyIdentityLinkStream(issuer, subject));
  const legacyId = userIdFor(issuer, subject);
  const legacy = (await store.readStream(`user-${legacyId}`)).map(plain).reduce(identityDecider.evolve, identityDecider.initialState);
  const candidateUserId = before.userId ?? (legacy.registered && !legacy.deleted ? legacyId : newUserId());
  const { events } = await decideAndAppend(
    store,
    stream,
    identityLinkDecider,
    { candidateUserId, at: now },
    { actorUserId: candidateUserId, now },
    { upcast: linkUpcast },
  );
  const appended = events[0];
  if (appended?.type === 'IdentityLinked') return appended.data.userId;
  const after = await current();
  if (!after.userId) throw new Error('The identity could not be linked to an account');
  return after.userId;
}
