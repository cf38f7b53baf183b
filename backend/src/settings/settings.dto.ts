import { IsBoolean, IsOptional } from 'class-validator';

/** PATCH /api/settings: the settings to change, each optional; unknown fields are refused (400 naming them). */
export class ChangeSettingsDto {
  @IsOptional()
  @IsBoolean({ message: 'acceptCareActions must be true or false' })
  acceptCareActions?: boolean;
}
