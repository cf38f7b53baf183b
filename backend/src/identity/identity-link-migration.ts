import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { identityLinkDecider, type IdentityLinkEvent, identityLinkStream, legacyIdentityLinkStream } from './identity.decider';
import type { KeyStore } from './key-store';
import type { LookupHash } from './lookup-hash';
import { openPersonalData } from './personal-data';

/** `identity-` and the 22 characters of a sha256 name; keyed names have 32. */
const LEGACY_NAME_LENGTH = 'identity-'.length + 22;

/**
 * The embedded default's upgrade of identity links to keyed names, at start-up, in place (like the personal-data
 * migration): a stream `identity-<sha256(issuer, subject)>` of an install before keyed hashes
 * - that links a live account gets its keyed name (its events as they are), or is dropped when the keyed stream
 *   exists already (the person signed in since, which carried the link over);
 * - whose accounts were all deleted is dropped: it only says that an identity once had an account, and its name
 *   derives from the subject (an e-mail, for the old password-less sign-in) without any key.
 * A link whose subject cannot be read (the key is gone) is left to the next sign-in, which reads it by its old
 * name. EventStoreDB keeps such streams under their old names (read the same way; a deletion unlinks both).
 */
export async function migrateIdentityLinksInSqlite(file: string, keys: KeyStore, lookup: LookupHash): Promise<{ renamed: number; dropped: number }> {
  const done = { renamed: 0, dropped: 0 };
  if (!existsSync(file)) return done;
  const db = new Database(file);
  try {
    const hasEvents = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'events'").get();
    if (!hasEvents) return done;
    const streams = db
      // A range on the (stream_id, stream_version) index, not a LIKE: no scan of the whole log at every start.
      .prepare<[number], string>("SELECT DISTINCT stream_id FROM events WHERE stream_id >= 'identity-' AND stream_id < 'identity.' AND length(stream_id) = ?")
      .pluck()
      .all(LEGACY_NAME_LENGTH);
    const eventsOf = db.prepare<[string], { type: string; data: string }>('SELECT type, data FROM events WHERE stream_id = ? ORDER BY stream_version');
    const registration = db.prepare<[string], { data: string }>("SELECT data FROM events WHERE stream_id = ? AND type = 'UserRegistered' LIMIT 1");
    const exists = db.prepare<[string], number>('SELECT 1 FROM events WHERE stream_id = ? LIMIT 1').pluck();
    const rename = db.prepare('UPDATE events SET stream_id = ? WHERE stream_id = ?');
    const drop = db.prepare('DELETE FROM events WHERE stream_id = ?');
    for (const stream of streams) {
      const link = eventsOf
        .all(stream)
        .map((row) => ({ type: row.type, data: JSON.parse(row.data) }) as IdentityLinkEvent)
        .reduce(identityLinkDecider.evolve, identityLinkDecider.initialState);
      if (!link.userId) {
        drop.run(stream);
        done.dropped += 1;
        continue;
      }
      const row = registration.get(`user-${link.userId}`);
      if (!row) continue;
      const registered = openPersonalData('UserRegistered', JSON.parse(row.data) as Record<string, unknown>, await keys.existingKey(link.userId));
      const { issuer, subject } = registered as { issuer?: unknown; subject?: unknown };
      if (typeof issuer !== 'string' || typeof subject !== 'string' || legacyIdentityLinkStream(issuer, subject) !== stream) continue;
      const keyed = identityLinkStream(lookup, issuer, subject);
      if (exists.get(keyed)) {
        drop.run(stream);
        done.dropped += 1;
      } else {
        rename.run(keyed, stream);
        done.renamed += 1;
      }
    }
    return done;
  } finally {
    db.close();
  }
}
