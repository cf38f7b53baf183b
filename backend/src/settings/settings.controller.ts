import { Body, Controller, Get, Patch, UseGuards } from '@nestjs/common';
import { CurrentUser, SignedInGuard } from '../identity/signed-in.guard';
import type { SessionUser } from '../identity/signed-in.guard';
import type { UserSettings } from './settings.decider';
import { ChangeSettingsDto } from './settings.dto';
import { UserSettingsService } from './settings.service';

/** The signed-in person's settings: GET them all, PATCH the ones to change (the answer is all of them). */
@Controller('settings')
@UseGuards(SignedInGuard)
export class SettingsController {
  constructor(private readonly settings: UserSettingsService) {}

  @Get()
  get(@CurrentUser() user: SessionUser): Promise<UserSettings> {
    return this.settings.get(user.id);
  }

  @Patch()
  change(@CurrentUser() user: SessionUser, @Body() body: ChangeSettingsDto): Promise<UserSettings> {
    const { firstName, timeZone, reminderTime, acceptCareActions } = body;
    return this.settings.change(user.id, { firstName, timeZone, reminderTime, acceptCareActions });
  }
}
