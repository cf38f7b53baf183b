import type RedisStore from 'connect-redis';
import type { SessionData, Store } from 'express-session';
import type { Redis } from 'ioredis';
import { ABSOLUTE_TIMEOUT_MS } from './session';
import type { EndsSessionsOfUser } from './session-store.port';

/**
 * The sessions of the production stack, in Redis (connect-redis), with an index of each person's sessions: a set of
 * their session ids under `<prefix>:sess-of:<userId>`, added to whenever a signed-in session is saved. With it, a
 * password reset (and an account deletion) ends every session of the account at once, as the SQLite store does;
 * without it they lived on until they expired.
 *
 * The index outlives its sessions: it expires an absolute timeout after the last save of a signed-in session, and
 * no session lives longer than that after its sign-in. Ids of sessions that ended on their own stay in the set
 * until then (deleting a key that is gone does nothing).
 */
export function indexedRedisSessions(Base: typeof RedisStore, client: Redis, prefix: string): Store & EndsSessionsOfUser {
  const sessionKey = (sid: string) => `${prefix}:sess:${sid}`;
  const sessionsOf = (userId: string) => `${prefix}:sess-of:${userId}`;
  const indexFor = Math.ceil(ABSOLUTE_TIMEOUT_MS / 1000);

  class IndexedRedisStore extends Base implements EndsSessionsOfUser {
    override async set(sid: string, sess: SessionData, cb?: (err?: unknown) => void): Promise<void> {
      const user = (sess as { passport?: { user?: unknown } }).passport?.user;
      if (typeof user === 'string') {
        try {
          // Indexed first: a session that is stored is always one the index can end.
          await client.multi().sadd(sessionsOf(user), sid).expire(sessionsOf(user), indexFor).exec();
        } catch (err) {
          return cb?.(err);
        }
      }
      return super.set(sid, sess, cb);
    }

    async destroyAllOf(userId: string): Promise<number> {
      // The index is read and deleted at once: a session saved meanwhile is in the next index, never dropped from
      // this one unended (a read, then a delete of the index, lost it: it outlived the reset).
      const [[readError, sids], [deleteError]] = (await client.multi().smembers(sessionsOf(userId)).del(sessionsOf(userId)).exec()) as [[Error | null, string[]], [Error | null]];
      if (readError || deleteError) throw readError ?? deleteError;
      return sids.length > 0 ? await client.del(...sids.map(sessionKey)) : 0;
    }
  }
  return new IndexedRedisStore({ client, prefix: `${prefix}:sess:` });
}
