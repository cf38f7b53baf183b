import { Button, type ButtonProps } from 'antd';
import type { MouseEvent } from 'react';
import { LOGIN_URL, browser } from '../lib/session';

/**
 * A button that starts sign-in (GET /api/login). It is the submit button of a form to that address, so it also
 * works in the prerendered landing page, which loads no script (scripts/prerender-landing.ts); in the app, the
 * click navigates through `browser` instead. The form takes no room of its own (`display: contents`).
 */
export function SignInButton({ children, ...props }: Omit<ButtonProps, 'onClick' | 'htmlType' | 'href'>) {
  const signIn = (event: MouseEvent) => {
    event.preventDefault();
    browser.navigate(LOGIN_URL);
  };
  return (
    <form action={LOGIN_URL} method="get" className="signin-form">
      <Button {...props} htmlType="submit" onClick={signIn}>
        {children}
      </Button>
    </form>
  );
}
