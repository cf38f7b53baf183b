import { IsDefined, IsInt, Max, Min } from 'class-validator';

const wholeOneToFive = { message: '$property must be a whole number from 1 to 5' };
const required = { message: '$property is required' };

/** POST /api/joy-ratings and PUT /api/joy-ratings/:id: the five PERMA factors, each a whole number 1–5; nothing else is accepted. */
export class SubmitRatingDto {
  @IsDefined(required) @IsInt(wholeOneToFive) @Min(1, wholeOneToFive) @Max(5, wholeOneToFive) relationships!: number;
  @IsDefined(required) @IsInt(wholeOneToFive) @Min(1, wholeOneToFive) @Max(5, wholeOneToFive) health!: number;
  @IsDefined(required) @IsInt(wholeOneToFive) @Min(1, wholeOneToFive) @Max(5, wholeOneToFive) purpose!: number;
  @IsDefined(required) @IsInt(wholeOneToFive) @Min(1, wholeOneToFive) @Max(5, wholeOneToFive) growth!: number;
  @IsDefined(required) @IsInt(wholeOneToFive) @Min(1, wholeOneToFive) @Max(5, wholeOneToFive) joy!: number;
}
