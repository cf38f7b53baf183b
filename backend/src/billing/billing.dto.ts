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

