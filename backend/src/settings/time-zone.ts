import { Module } from '@nestjs/common';
import { DEFAULT_TIME_ZONE } from '@joy/domain';
import { READ_MODELS, type ReadModelStore } from '../read-models/read-model-store.port';
import { type UserSettingsDoc, userSettingsProjector } from '../projections/user-settings.projector';

/**
 * The port through which ratings (a rating's `day`), insights and reminders ask for the zone a person's days are
 * counted in: their `timeZone` setting, or UTC before they have one. Read from the user-settings read model, which
 * PATCH /api/settings waits for, so a zone just set is the one the next rating sees.
 */
export type TimeZoneLookup = (userId: string) => Promise<string>;
export const TIME_ZONE_LOOKUP = 'TimeZoneLookup';

export function timeZoneFromSettings(readModels: ReadModelStore): TimeZoneLookup {
  return async (userId) => (await readModels.get<UserSettingsDoc>(userSettingsProjector.collection, userId))?.timeZone ?? DEFAULT_TIME_ZONE;
}

/** Import this module to inject TIME_ZONE_LOOKUP. */
@Module({
  providers: [{ provide: TIME_ZONE_LOOKUP, useFactory: timeZoneFromSettings, inject: [READ_MODELS] }],
  exports: [TIME_ZONE_LOOKUP],
})
export class TimeZoneModule {}
