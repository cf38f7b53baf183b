import { IsOptional, ValidateBy, ValidationArguments } from 'class-validator';
import { CARE_MESSAGE_MAX, fitsLength, isCareKind } from '@joy/domain';
import { IsCleanName } from '../names/name-rule';
import { CARE_MESSAGES } from './care.decider';

/** A non-blank string id of at most 64 characters. */
function Id(required: string): PropertyDecorator {
  return ValidateBy({
    name: 'id',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && value.trim() !== '' && value.length <= 64,
      defaultMessage: ({ value, property }: ValidationArguments) =>
        value === undefined || value === null || value === '' ? required : typeof value !== 'string' ? `${property} must be a string` : `${property} is not a valid id`,
    },
  });
}

/**
 * POST /api/care-actions: `groupId`, `recipientId`, `kind` (flowers | handwritten_card | digital_gift_card |
 * care_package), `message` optional, at most 500 characters after trimming. Unknown fields are refused.
 */
export class SendCareActionDto {
  @Id(CARE_MESSAGES.groupIdRequired)
  groupId!: string;

  @Id(CARE_MESSAGES.recipientIdRequired)
  recipientId!: string;

  @ValidateBy({ name: 'careKind', validator: { validate: isCareKind, defaultMessage: () => CARE_MESSAGES.kindInvalid } })
  kind!: string;

  @IsOptional()
  @ValidateBy({
    name: 'careMessage',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && fitsLength(value.normalize('NFC').trim(), CARE_MESSAGE_MAX),
      defaultMessage: ({ value }: ValidationArguments) => (typeof value !== 'string' ? CARE_MESSAGES.messageNotText : CARE_MESSAGES.messageTooLong),
    },
  })
  @IsCleanName({ multiline: true })
  message?: string | null;
}
