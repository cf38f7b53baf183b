import { canonicalTimeZone } from '@joy/domain';
import { Inject, Injectable } from '@nestjs/common';
import { decideAndAppend } from '../event-store/decider';
import { EVENT_STORE, type EventStore } from '../event-store/event-store.port';
import { userStreamCodec } from '../identity/accounts';
import { KEY_STORE, type KeyStore } from '../identity/key-store';
import { normalizeName } from '../names/name-rule';
import { READ_YOUR_WRITES, type ReadYourWrites } from '../projections/read-your-writes';
import { SettingsChanges, settingsDecider, SettingsEvent, UserSettings } from './settings.decider';

/** A person's settings as GET /api/settings shows them (the account export reads them so too): their user stream folded, the name decrypted with their key. */
export async function readUserSettings(store: EventStore, keys: KeyStore, userId: string): Promise<UserSettings> {
  const { upcast } = userStreamCodec<SettingsEvent>(await keys.existingKey(userId));
  return (await store.readStream(`user-${userId}`)).map(upcast).reduce(settingsDecider.evolve, settingsDecider.initialState);
}

/** A person's settings: read by folding their user stream (the name decrypted with their key), changed by appending to it. */
@Injectable()
export class UserSettingsService {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(READ_YOUR_WRITES) private readonly readYourWrites: ReadYourWrites,
    @Inject(KEY_STORE) private readonly keys: KeyStore,
  ) {}

  get(userId: string): Promise<UserSettings> {
    return readUserSettings(this.store, this.keys, userId);
  }

  /**
   * Changes what `changes` names (validated by the DTO); answers once every read model that shows a setting
   * sees it (read-your-writes): names in groups, care suggestions, reminders, the time zone of new ratings.
   */
  async change(userId: string, changes: SettingsChanges): Promise<UserSettings> {
    const normalised: SettingsChanges = {
      ...changes,
      ...(typeof changes.firstName === 'string' ? { firstName: normalizeName(changes.firstName) } : {}),
      ...(typeof changes.timeZone === 'string' ? { timeZone: canonicalTimeZone(changes.timeZone) } : {}),
    };
    const codec = userStreamCodec<SettingsEvent>(await this.keys.keyFor(userId));
    const { append, events } = await decideAndAppend(this.store, `user-${userId}`, settingsDecider, { userId, changes: normalised }, { actorUserId: userId }, codec);
    // Only the projections of what was written: a name's projections never see a time zone's event (and the other
    // way round), so waiting for them lasted until the relay's watermark, up to 400 ms.
    if (append) await this.readYourWrites.waitFor(append.position, { eventTypes: events.map((e) => e.type) });
    return this.get(userId);
  }
}
