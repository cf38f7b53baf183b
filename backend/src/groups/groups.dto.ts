import { IsOptional, ValidateBy, ValidateIf, ValidationArguments } from 'class-validator';
import { IsCleanName } from '../names/name-rule';
import { fitsLength, GROUP_DESCRIPTION_MAX, GROUP_NAME_MAX, normalizeInviteCode } from '@joy/domain';
import { INVITE_CODE_LENGTH, MESSAGES } from './groups.decider';

const trimmed = (value: string) => value.normalize('NFC').trim();

/**
 * A string that, once trimmed (or put in the form the handler uses, `normalize`), is not blank (when `blank` names
 * the message) and at most `max` characters. The body reaches the handler as sent (the pipe does not transform);
 * the decider or handler trims.
 */
function TrimmedText(max: number, messages: { blank?: string; tooLong: string }, normalize = trimmed): PropertyDecorator {
  return ValidateBy({
    name: 'trimmedText',
    validator: {
      validate: (value: unknown) =>
        typeof value === 'string' && (!messages.blank || normalize(value) !== '') && fitsLength(normalize(value), max),
      defaultMessage: ({ value, property }: ValidationArguments) => {
        if (value === undefined || value === null) return messages.blank ?? `${property} must be a string`;
        if (typeof value !== 'string') return `${property} must be a string`;
        if (messages.blank && normalize(value) === '') return messages.blank;
        return messages.tooLong;
      },
    },
  });
}

/** POST /api/groups: `name` 1–80 characters after trimming; `description` optional, at most 500 (empty → null). */
export class CreateGroupDto {
  @TrimmedText(GROUP_NAME_MAX, { blank: MESSAGES.nameRequired, tooLong: MESSAGES.nameTooLong })
  @IsCleanName()
  name!: string;

  @IsOptional()
  @TrimmedText(GROUP_DESCRIPTION_MAX, { tooLong: MESSAGES.descriptionTooLong })
  @IsCleanName({ multiline: true })
  description?: string | null;
}

/**
 * POST /api/groups/join: `inviteCode`, case-insensitive, spaces and dashes ignored ("XCFF-UCGQ"); the messages are
 * shown to people as they are, so they are plain words, not field names.
 */
export class JoinGroupDto {
  @TrimmedText(INVITE_CODE_LENGTH, { blank: MESSAGES.inviteCodeRequired, tooLong: MESSAGES.inviteCodeTooLong }, normalizeInviteCode)
  inviteCode!: string;
}

/** PATCH /api/groups/:id: `name` and `description` as at creation; an absent one stays as it is (a null name is refused). */
export class UpdateGroupDto {
  @ValidateIf((o: UpdateGroupDto) => o.name !== undefined)
  @TrimmedText(GROUP_NAME_MAX, { blank: MESSAGES.nameRequired, tooLong: MESSAGES.nameTooLong })
  @IsCleanName()
  name?: string;

  @IsOptional()
  @TrimmedText(GROUP_DESCRIPTION_MAX, { tooLong: MESSAGES.descriptionTooLong })
  @IsCleanName({ multiline: true })
  description?: string | null;
}
