import { subscriptionDecider, subscriptionStream } from '../billing/billing.decider';
import { loadConfig } from '../config';
import { DomainError } from '@joy/domain';
import { decideAndAppend } from '../event-store/decider';
import type { EventStore, RecordedEvent } from '../event-store/event-store.port';
import { normaliseEmail } from '../identity/accounts/local-accounts';
import type { KeyStore } from '../identity/key-store';
import { decryptField } from '../identity/personal-data';
import { createEventStore, createKeyStore, openLocalAccounts } from '../infrastructure';
import type { CliIo } from './cli-io';

const USAGE = `usage: npm run users -- reset-password <email> | grant-premium <email> [--months N]
  reset-password <email>   prints a one-time link (valid for an hour) where the account's owner chooses a new
                           password (accounts of the built-in sign-in; no mail server needed: pass the link on)
  grant-premium <email>    gives the person Joy Premium for N months (default 12), as an event like any other;
                           it ends by itself then (for installs without payments, or as a gift)
  They read the same environment as the app (DATA_DIR, EVENTSTORE_URL, MONGO_URL, PUBLIC_URL) and work beside a
  running app.`;

const PAGE = 1000;

/**
 * The account of an e-mail address, whatever provider it signs in with: the identity events are read in order
 * and each person's latest e-mail decrypted with their key (a deleted person's is unreadable, so never found).
 */
export async function userIdByEmail(store: EventStore, keys: KeyStore, email: string): Promise<string | null> {
  const wanted = normaliseEmail(email);
  const latest = new Map<string, string | null>();
  const head = await store.headPosition();
  for (let from = 0; from < head; ) {
    const page: RecordedEvent[] = await store.readAll({ from, limit: PAGE });
    if (page.length === 0) break;
    for (const event of page) {
      const userId = String(event.data.userId ?? '');
      if (event.type === 'UserRegistered' || event.type === 'UserProfileUpdated') {
        const plain = decryptField(await keys.existingKey(userId), userId, 'email', event.data.email);
        latest.set(userId, plain === null ? null : normaliseEmail(plain));
      } else if (event.type === 'UserDeleted') {
        latest.delete(userId);
      }
    }
    from = page[page.length - 1].position;
  }
  for (const [userId, address] of latest) if (address === wanted) return userId;
  return null;
}

export async function runUsers(argv: string[], io: CliIo): Promise<number> {
  const [command, email, ...rest] = argv;
  if (!command || !email || !['reset-password', 'grant-premium'].includes(command)) {
    io.err(`${USAGE}\n`);
    return 2;
  }
  const config = loadConfig(io.env);
  const keys = createKeyStore(config);
  try {
    if (command === 'reset-password') {
      if (config.oidc) {
        io.err(`OIDC_ISSUER is set: people sign in at ${config.oidc.issuer}, where their passwords are reset.\n`);
        return 1;
      }
      const accounts = await openLocalAccounts(config, keys);
      try {
        const token = accounts.createResetToken(email);
        if (!token) {
          io.err(`No account of the built-in sign-in has the e-mail ${email}.\n`);
          return 1;
        }
        await io.out(`One-time link to choose a new password (valid for an hour; give it only to the account's owner):\n${config.publicUrl}/oidc/reset/${token}\n`);
        return 0;
      } finally {
        accounts.store.close();
      }
    }

    const months = monthsOption(rest);
    if (months === null) {
      io.err(`--months must be a whole number from 1 to 120\n${USAGE}\n`);
      return 2;
    }
    const store = createEventStore(config);
    try {
      const userId = await userIdByEmail(store, keys, email);
      if (!userId) {
        io.err(`Nobody has signed in to Joy with the e-mail ${email} (they must sign in once first).\n`);
        return 1;
      }
      const at = new Date();
      const until = new Date(at);
      until.setUTCMonth(until.getUTCMonth() + months);
      try {
        await decideAndAppend(store, subscriptionStream(userId), subscriptionDecider, { type: 'GrantPremium', userId, until, at }, { actorUserId: 'operator', now: at }, {
          upcast: (e) => ({ type: e.type, data: e.data }) as never,
        });
      } catch (err) {
        if (err instanceof DomainError) {
          io.err(`${err.message}\n`);
          return 1;
        }
        throw err;
      }
      await io.out(`Joy Premium granted to ${email} until ${until.toISOString().slice(0, 10)}.\n`);
      return 0;
    } finally {
      await store.close();
    }
  } finally {
    await keys.close();
  }
}

function monthsOption(rest: string[]): number | null {
  const i = rest.indexOf('--months');
  if (i === -1) return rest.length === 0 ? 12 : null;
  const months = Number(rest[i + 1]);
  return rest.length === 2 && Number.isInteger(months) && months >= 1 && months <= 120 ? months : null;
}
