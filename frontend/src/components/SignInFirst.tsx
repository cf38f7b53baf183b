import { useEffect } from 'react';
import { useLocation } from 'react-router-dom';
import { browser, loginUrl } from '../lib/session';
import { PageLoading } from './PageLoading';

/**
 * A signed-in page opened signed out (a bookmark, a shared link): straight to sign-in, which comes back to
 * this very page. The 404 page is only for paths that do not exist.
 */
export function SignInFirst() {
  const { pathname, search } = useLocation();
  useEffect(() => browser.navigate(loginUrl(pathname + search)), [pathname, search]);
  return <PageLoading />;
}
