import { fitsLength, NOTE_MAX } from '@joy/domain';
import { IsDefined, IsInt, IsOptional, Max, Min, ValidateBy, ValidationArguments } from 'class-validator';
import { IsCleanName } from '../names/name-rule';

const wholeOneToFive = { message: '$property must be a whole number from 1 to 5' };
const required = { message: '$property is required' };

/** A note: text of at most NOTE_MAX characters after trimming (null or blank: none), by the name rule's clean text. */
function IsNote(): PropertyDecorator {
  return ValidateBy({
    name: 'note',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && fitsLength(value.normalize('NFC').trim(), NOTE_MAX),
      defaultMessage: ({ value }: ValidationArguments) => (typeof value !== 'string' ? 'note must be text' : `note must be at most ${NOTE_MAX} characters`),
    },
  });
}

/** PUT /api/joy-ratings/:id: the five PERMA factors, each a whole number 1–5, and optionally the note; nothing else is accepted. */
export class CorrectRatingDto {
  @IsDefined(required) @IsInt(wholeOneToFive) @Min(1, wholeOneToFive) @Max(5, wholeOneToFive) relationships!: number;
  @IsDefined(required) @IsInt(wholeOneToFive) @Min(1, wholeOneToFive) @Max(5, wholeOneToFive) health!: number;
  @IsDefined(required) @IsInt(wholeOneToFive) @Min(1, wholeOneToFive) @Max(5, wholeOneToFive) purpose!: number;
  @IsDefined(required) @IsInt(wholeOneToFive) @Min(1, wholeOneToFive) @Max(5, wholeOneToFive) growth!: number;
  @IsDefined(required) @IsInt(wholeOneToFive) @Min(1, wholeOneToFive) @Max(5, wholeOneToFive) joy!: number;

  /** Left out: the note stays; null or blank: the note is removed. */
  @IsOptional() @IsNote() @IsCleanName({ multiline: true }) note?: string | null;
}

/**
 * POST /api/joy-ratings: as a correction, and optionally the `day` rated (checked against the person's zone by the
 * decider); null, like left out, is today.
 */
export class SubmitRatingDto extends CorrectRatingDto {
  @IsOptional()
  @ValidateBy({ name: 'day', validator: { validate: (v: unknown) => typeof v === 'string', defaultMessage: () => 'day must be a date written YYYY-MM-DD' } })
  day?: string | null;
}
