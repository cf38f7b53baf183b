import { Module } from '@nestjs/common';
import { SettingsController } from './settings.controller';
import { UserSettingsService } from './settings.service';
import { TimeZoneModule } from './time-zone';

/** GET/PATCH /api/settings: the person's own settings (first name, time zone, reminder time, care actions). */
@Module({
  imports: [TimeZoneModule],
  controllers: [SettingsController],
  providers: [UserSettingsService],
  exports: [TimeZoneModule],
})
export class SettingsModule {}
