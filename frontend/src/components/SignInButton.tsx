import { Button, type ButtonProps } from 'antd';
import type { MouseEvent } from 'react';
import { LOGIN_URL, browser } from '../lib/session';

/** Where Create account opens (the built-in sign-in's sign-up view; an OIDC_ISSUER's own page ignores it). */
export const SIGNUP_URL = `${LOGIN_URL}?signup=1`;

/**
 * A button that starts sign-in (GET /api/login), or with `signup` account creation (GET /api/login?signup=1). It is
 * the submit button of a form to that address, so it also works in the prerendered landing page, which loads no
 * script (scripts/prerender-landing.ts); in the app, the click navigates through `browser` instead. The form takes
 * no room of its own (`display: contents`). A GET form replaces its action's query with its fields, so `signup`
 * travels as a hidden field.
 */
export function SignInButton({ children, signup = false, ...props }: Omit<ButtonProps, 'onClick' | 'htmlType' | 'href'> & { signup?: boolean }) {
  const signIn = (event: MouseEvent) => {
    event.preventDefault();
    browser.navigate(signup ? SIGNUP_URL : LOGIN_URL);
  };
  return (
    <form action={LOGIN_URL} method="get" className="signin-form">
      {signup && <input type="hidden" name="signup" value="1" />}
      <Button {...props} htmlType="submit" onClick={signIn}>
        {children}
      </Button>
    </form>
  );
}
