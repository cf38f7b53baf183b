import { Module } from '@nestjs/common';
import { SettingsController } from './settings.controller';
import { UserSettingsService } from './settings.service';

/** GET/PATCH /api/settings: the person's own settings (today whether they accept care actions). */
@Module({
  controllers: [SettingsController],
  providers: [UserSettingsService],
})
export class SettingsModule {}
