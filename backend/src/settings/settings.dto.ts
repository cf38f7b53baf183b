import { DISPLAY_NAME_MAX, fitsLength, isReminderTime, isTimeZone } from '@joy/domain';
import { IsBoolean, IsOptional, ValidateBy, ValidateIf } from 'class-validator';
import { IsCleanName } from '../names/name-rule';

export const SETTINGS_FIELD_MESSAGES = {
  firstName: `firstName must be 1 to ${DISPLAY_NAME_MAX} characters`,
  timeZone: 'timeZone must be an IANA time zone such as Europe/Paris',
  reminderTime: 'reminderTime must be a time "HH:MM" (00:00 to 23:59) or null',
} as const;

const Check = (name: string, ok: (value: unknown) => boolean, message: string): PropertyDecorator =>
  ValidateBy({ name, validator: { validate: ok, defaultMessage: () => message } });

/**
 * PATCH /api/settings: the settings to change, each optional; unknown fields are refused (400 naming them).
 * `firstName` and `timeZone` cannot be removed (null is refused); `reminderTime: null` turns the reminder off.
 * The handler trims and normalises the name and stores the time zone's canonical spelling.
 */
export class ChangeSettingsDto {
  @ValidateIf((o: ChangeSettingsDto) => o.firstName !== undefined)
  @Check(
    'firstName',
    (v) => typeof v === 'string' && v.normalize('NFC').trim() !== '' && fitsLength(v.normalize('NFC').trim(), DISPLAY_NAME_MAX),
    SETTINGS_FIELD_MESSAGES.firstName,
  )
  @IsCleanName()
  firstName?: string;

  @ValidateIf((o: ChangeSettingsDto) => o.timeZone !== undefined)
  @Check('timeZone', isTimeZone, SETTINGS_FIELD_MESSAGES.timeZone)
  timeZone?: string;

  @IsOptional()
  @Check('reminderTime', isReminderTime, SETTINGS_FIELD_MESSAGES.reminderTime)
  reminderTime?: string | null;

  // Not IsOptional: that lets null through, and null is neither choice (the care rule read it as "declines").
  @ValidateIf((o: ChangeSettingsDto) => o.acceptCareActions !== undefined)
  @IsBoolean({ message: 'acceptCareActions must be true or false' })
  acceptCareActions?: boolean;
}
