import { newPasswordProblem, passwordProblem, PASSWORDS_DIFFER } from './passwords';

describe('passwordProblem: why a new password is refused, in the words the form shows', () => {
  const email = 'margarethe.quill@example.com';

  it('says a password that is the e-mail address, or its part before the @, is that (not "too common")', () => {
    expect(passwordProblem(email, email)).toBe('Your password must not be your e-mail address.');
    expect(passwordProblem(email.toUpperCase(), email)).toBe('Your password must not be your e-mail address.');
    expect(passwordProblem('Margarethe.Quill', email)).toBe('Your password must not be the part of your e-mail address before the @.');
  });

  it('still refuses short, long and common passwords, and accepts a good one', () => {
    expect(passwordProblem('short-one', email)).toBe('Password must be at least 10 characters.');
    expect(passwordProblem('x'.repeat(201), email)).toBe('Password can be at most 200 characters.');
    expect(passwordProblem('1234567890', email)).toMatch(/^This password is too common or easy to guess\./);
    expect(passwordProblem('violet-harbour-kettle-92', email)).toBeNull();
    // A reset link knows no e-mail: nothing is compared with it.
    expect(passwordProblem('violet-harbour-kettle-92', '')).toBeNull();
  });
});

describe('newPasswordProblem: a new password and its confirmation', () => {
  it('names a weak password first, then a mismatch, else nothing', () => {
    expect(newPasswordProblem('short', 'other', '')).toBe('Password must be at least 10 characters.');
    expect(newPasswordProblem('violet-harbour-kettle-92', 'violet-harbour-kettle-93', '')).toBe(PASSWORDS_DIFFER);
    expect(newPasswordProblem('violet-harbour-kettle-92', 'violet-harbour-kettle-92', '')).toBeNull();
  });
});
