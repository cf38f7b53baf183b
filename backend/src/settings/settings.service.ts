import { Inject, Injectable } from '@nestjs/common';
import { decideAndAppend } from '../event-store/decider';
import { EVENT_STORE, type EventStore, type RecordedEvent } from '../event-store/event-store.port';
import { READ_YOUR_WRITES, type ReadYourWrites } from '../projections/read-your-writes';
import { SettingsChanges, settingsDecider, UserSettings, UserSettingsChanged } from './settings.decider';

const upcast = (e: RecordedEvent) => ({ type: e.type, data: e.data }) as unknown as UserSettingsChanged;

/** A person's settings: read by folding their user stream, changed by appending to it. */
@Injectable()
export class UserSettingsService {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(READ_YOUR_WRITES) private readonly readYourWrites: ReadYourWrites,
  ) {}

  async get(userId: string): Promise<UserSettings> {
    return (await this.store.readStream(`user-${userId}`)).map(upcast).reduce(settingsDecider.evolve, settingsDecider.initialState);
  }

  /** Changes what `changes` names; answers once care suggestions and care sending see it (read-your-writes). */
  async change(userId: string, changes: SettingsChanges): Promise<UserSettings> {
    const { append } = await decideAndAppend(this.store, `user-${userId}`, settingsDecider, { userId, changes }, { actorUserId: userId }, { upcast });
    if (append) await this.readYourWrites.waitFor(append.position, { eventTypes: ['UserSettingsChanged'] });
    return this.get(userId);
  }
}
