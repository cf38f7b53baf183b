import { Suspense } from 'react';
import { Outlet, useLocation } from 'react-router-dom';
import { Brand } from './Brand';
import { PageErrorBoundary } from './PageErrorBoundary';
import { PageLoading } from './PageLoading';
import { SignInButton } from './SignInButton';
import { SiteFooter } from './SiteFooter';

/** Frame of the pages a signed-out visitor can open: top bar with Sign In, page, footer. */
export function PublicTopBar() {
  return (
    <header className="topbar">
      <div className="topbar__inner">
        <Brand />
        <SignInButton type="primary">Sign In</SignInButton>
      </div>
    </header>
  );
}

export function PublicLayout() {
  const { pathname } = useLocation();
  return (
    <div className="shell">
      <a href="#main" className="skip-link">
        Skip to content
      </a>
      <PublicTopBar />
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
