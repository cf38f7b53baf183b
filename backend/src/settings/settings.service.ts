import { Inject, Injectable } from '@nestjs/common';
import { PIPELINE } from '../app.tokens';
import { decideAndAppend } from '../event-store/decider';
import { EVENT_STORE, type EventStore, type RecordedEvent } from '../event-store/event-store.port';
import type { ProjectionPipeline } from '../projections/projection-pipeline';
import { SettingsChanges, settingsDecider, UserSettings, UserSettingsChanged } from './settings.decider';

const upcast = (e: RecordedEvent) => ({ type: e.type, data: e.data }) as unknown as UserSettingsChanged;

/** A person's settings: read by folding their user stream, changed by appending to it. */
@Injectable()
export class UserSettingsService {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(PIPELINE) private readonly pipeline: Pick<ProjectionPipeline, 'waitFor'>,
  ) {}

  async get(userId: string): Promise<UserSettings> {
    return (await this.store.readStream(`user-${userId}`)).map(upcast).reduce(settingsDecider.evolve, settingsDecider.initialState);
  }

  /** Changes what `changes` names; answers once care suggestions and care sending see it (read-your-writes). */
  async change(userId: string, changes: SettingsChanges): Promise<UserSettings> {
    const { append } = await decideAndAppend(this.store, `user-${userId}`, settingsDecider, { userId, changes }, { actorUserId: userId }, { upcast });
    if (append) await this.pipeline.waitFor(['UserSettingsChanged'], append.position);
    return this.get(userId);
  }
}
