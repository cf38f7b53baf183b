import { DISPLAY_NAME_MAX, fitsLength } from '@joy/domain';
import { nameProblem } from '../../names/name-rule';
import { isEmail } from './local-accounts';

/** Why a first name is refused (the app's one name rule, issue 15), in the form's words; null when accepted. */
export function firstNameProblem(name: string): string | null {
  if (name === '') return 'Enter your first name.';
  if (!fitsLength(name, DISPLAY_NAME_MAX)) return `First name can be at most ${DISPLAY_NAME_MAX} characters.`;
  const problem = nameProblem(name, 'First name');
  return problem && `${problem}.`;
}

export const ENTER_EMAIL = 'Enter your e-mail address.';
export const ENTER_PASSWORD = 'Enter your password.';
export const INVALID_EMAIL = 'Enter a valid e-mail address.';

/**
 * What the Sign in form is missing, by field (an empty field, or an e-mail that is no address at all), or null when
 * it can be checked. Only the form itself is judged here: whether the e-mail has an account is never said.
 */
export function signInFieldProblems(email: string, password: string): { email?: string; password?: string } | null {
  const errors: { email?: string; password?: string } = {};
  if (email === '') errors.email = ENTER_EMAIL;
  else if (!isEmail(email)) errors.email = INVALID_EMAIL;
  if (password === '') errors.password = ENTER_PASSWORD;
  return errors.email || errors.password ? errors : null;
}
