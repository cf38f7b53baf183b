import { Suspense } from 'react';
import { Outlet, useLocation } from 'react-router-dom';
import { Brand } from './Brand';
import { PageErrorBoundary } from './PageErrorBoundary';
import { PageLoading } from './PageLoading';
import { SignInButton } from './SignInButton';
import { SiteFooter } from './SiteFooter';

/**
 * Frame of the pages a signed-out visitor can open: top bar with Sign In, page, footer. Without Sign In
 * (`signIn={false}`) while whether the person is signed in is unknown (offline, the server starting): it offered a
 * signed-in person to sign in, and could not reach the server anyway.
 */
export function PublicTopBar({ signIn = true }: { signIn?: boolean }) {
  return (
    <header className="topbar">
      <div className="topbar__inner">
        <Brand />
        {signIn && <SignInButton type="primary">Sign In</SignInButton>}
      </div>
    </header>
  );
}

export function PublicLayout({ signIn = true }: { signIn?: boolean }) {
  const { pathname } = useLocation();
  return (
    <div className="shell">
      <a href="#main" className="skip-link">
        Skip to content
      </a>
      <PublicTopBar signIn={signIn} />
      <main id="main" className="page" tabIndex={-1}>
        <PageErrorBoundary resetKey={pathname}>
          <Suspense fallback={<PageLoading />}>
            <Outlet />
          </Suspense>
        </PageErrorBoundary>
      </main>
      <SiteFooter />
    </div>
  );
}
