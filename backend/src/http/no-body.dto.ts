import { Equals } from 'class-validator';

/**
 * The body of a route that takes none (billing's create, cancel, resume and portal; leaving or deleting a group, a new
 * invite code, thanking, withdrawing a rating, a passkey's options and removal): every field is unknown, so the
 * global pipe refuses it with a 400 naming it, as on every other route; no body at all, or `{}`, passes.
 * class-validator takes a class without a single rule for an unknown value (`forbidUnknownValues`) and would refuse
 * even `{}`: this one rule, met only by a field that is not there, makes the class known.
 */
export class NoBodyDto {
  @Equals(undefined, { message: '$property is not an accepted field' }) readonly none?: never;
}
