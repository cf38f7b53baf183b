import { Equals, IsDefined, IsOptional, IsString, MaxLength } from 'class-validator';

const required = { message: '$property is required' };
const text = { message: '$property must be a string' };

/** POST /api/billing/sandbox/confirm: the checkout's client secret and a test card (expiry and CVC optional). */
export class ConfirmSandboxPaymentDto {
  @MaxLength(200) @IsString(text) @IsDefined(required) clientSecret!: string;
  @MaxLength(40) @IsString(text) @IsDefined(required) cardNumber!: string;
  @IsOptional() @MaxLength(10) @IsString(text) expiry?: string;
  @IsOptional() @MaxLength(10) @IsString(text) cvc?: string;
}

/**
 * The body of a route that takes none (create-subscription, cancel, resume, portal): every field is unknown, so the
 * global pipe refuses it with a 400 naming it, as on every other route; no body at all, or `{}`, passes.
 * class-validator takes a class without a single rule for an unknown value (`forbidUnknownValues`) and would refuse
 * even `{}`: this one rule, met only by a field that is not there, makes the class known.
 */
export class NoBodyDto {
  @Equals(undefined, { message: '$property is not an accepted field' }) readonly none?: never;
}
