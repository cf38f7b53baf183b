import { ValidateBy } from 'class-validator';

export const CONFIRMATION_WORD = 'DELETE';
export const ACCOUNT_MESSAGES = {
  confirm: `confirm must be "${CONFIRMATION_WORD}": type ${CONFIRMATION_WORD} to confirm the deletion.`,
  format: 'format must be json or csv',
} as const;

/** DELETE /api/account: `{ "confirm": "DELETE" }`, exactly; unknown fields are refused. */
export class DeleteAccountDto {
  @ValidateBy({
    name: 'confirmDelete',
    validator: { validate: (value: unknown) => value === CONFIRMATION_WORD, defaultMessage: () => ACCOUNT_MESSAGES.confirm },
  })
  confirm!: string;
}
