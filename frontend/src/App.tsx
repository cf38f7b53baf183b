import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import { App as AntApp, ConfigProvider } from 'antd';
import { Suspense, lazy, useEffect, useState } from 'react';
import { createBrowserRouter, Route, RouterProvider, Routes } from 'react-router-dom';
import { queryClient as defaultQueryClient } from './api';
import { useAuth } from './auth';
import { DemoBanner } from './components/DemoBanner';
import { DialogToasts } from './components/DialogToasts';
import { ToastControls } from './components/ToastControls';
import { OfflineBanner, useOfflineBannerHeight } from './components/OfflineBanner';
import { OfflineNotice } from './components/OfflineNotice';
import { PageErrorBoundary } from './components/PageErrorBoundary';
import { PageLoading } from './components/PageLoading';
import { PublicLayout } from './components/PublicLayout';
import { ScrollToTop } from './components/ScrollToTop';
import { FocusNewPage } from './components/FocusNewPage';
import { LeaveGuardProvider } from './components/LeaveGuard';
import { SignInFirst } from './components/SignInFirst';
import { TOAST_DURATION_SECONDS, bindNotifier } from './lib/toast';
import NotFound from './pages/NotFound';
import { ALWAYS_ROUTES, HomePage, SIGNED_IN_ROUTES } from './routes';
import { theme } from './theme';

/**
 * The landing page, when the app shows it: a link to "/" within the app while signed out, and on a demo
 * install. A visitor who opens "/" signed out gets it prerendered, without the app (scripts/prerender-landing.ts).
 */
const Landing = lazy(() => import('./pages/Landing'));

/** Shown only while the server starts (rare): loaded then. */
const StartingNotice = lazy(() => import('./components/StartingNotice').then((m) => ({ default: m.StartingNotice })));

/** The signed-in frame (navigation bar, drawer) is loaded only after sign-in is known. */
const AppLayout = lazy(() => import('./components/AppLayout').then((m) => ({ default: m.AppLayout })));

/** Binds antd's notification instance (with the theme and maxCount 1) to the toast module. */
function ToastBridge() {
  const { notification } = AntApp.useApp();
  useEffect(() => {
    bindNotifier(notification);
    return () => bindNotifier(null);
  }, [notification]);
  return null;
}

/**
 * Routes by auth state (SPEC §4, as PRODUCT.md changes it): signed out, "/" is the landing page, /privacy,
 * /terms and /help are open, a signed-in page goes to sign-in and back to it, and only an unknown path is a
 * 404. While the user is loading, a signed-in path shows the loading placeholder rather than a 404 flash.
 */
export function AppRoutes() {
  const { isAuthenticated, isLoading, isError, starting, busy } = useAuth();
  const always = ALWAYS_ROUTES.map(({ path, Component }) => <Route key={path} path={path} element={<Component />} />);

  if (isAuthenticated) {
    return (
      <PageErrorBoundary>
      <Suspense fallback={<PageLoading fullScreen />}>
      <Routes>
        <Route element={<AppLayout />}>
          <Route index element={<HomePage />} />
          {SIGNED_IN_ROUTES.map(({ path, Component }) => (
            <Route key={path} path={path} element={<Component />} />
          ))}
          {always}
          <Route path="*" element={<NotFound />} />
        </Route>
      </Routes>
      </Suspense>
      </PageErrorBoundary>
    );
  }

  // The sign-in check could not reach the server (e.g. a reload while offline, served by the service
  // worker's cached app shell), or the server is still starting: say so instead of showing the landing page
  // or a 404 (a starting server is asked again until it is up, and the page goes on by itself).
  if (isError || starting) {
    const notice = starting ? (
      <Suspense fallback={<PageLoading />}>
        <StartingNotice />
      </Suspense>
    ) : (
      <OfflineNotice busy={busy} />
    );
    return (
      <Routes>
        <Route element={<PublicLayout signIn={false} />}>
          {always}
          <Route path="*" element={notice} />
        </Route>
      </Routes>
    );
  }

  return (
    <Routes>
      <Route
        index
        element={
          <Suspense fallback={<PageLoading fullScreen />}>
            <Landing />
          </Suspense>
        }
      />
      <Route element={<PublicLayout />}>
        {always}
        {SIGNED_IN_ROUTES.map(({ path }) => (
          <Route key={path} path={path} element={isLoading ? <PageLoading /> : <SignInFirst />} />
        ))}
        <Route path="*" element={isLoading ? <PageLoading /> : <NotFound />} />
      </Route>
    </Routes>
  );
}

/**
 * Where toasts show: on a desktop under the top bar (at the bar's height they covered Upgrade, the avatar and Sign
 * Out for 5 s), lower by the offline banner's height while it pushes the bar down; on a phone at the bottom (at the
 * top they covered a dialog's title). The side is decided once, at start. Dialogs lie over toasts (theme.ts).
 */
function toastPlacement(bannerHeight: number) {
  const phone = typeof window.matchMedia === 'function' && window.matchMedia('(max-width: 575px)').matches;
  return phone ? ({ placement: 'bottom', bottom: 16 } as const) : ({ placement: 'topRight', top: 80 + bannerHeight } as const);
}

export function Providers({ client = defaultQueryClient, children }: { client?: QueryClient; children: React.ReactNode }) {
  const bannerHeight = useOfflineBannerHeight();
  return (
    <ConfigProvider theme={theme}>
      <AntApp notification={{ maxCount: 1, duration: TOAST_DURATION_SECONDS, ...toastPlacement(bannerHeight) }}>
        <ToastBridge />
        <DialogToasts />
        <ToastControls />
        <QueryClientProvider client={client}>{children}</QueryClientProvider>
      </AntApp>
    </ConfigProvider>
  );
}

/**
 * The app's routes (AppRoutes) under one data router: what lets the app ask before unsaved changes are left
 * (LeaveGuardProvider's useBlocker needs one).
 */
const appRoutes = [
  {
    path: '*',
    element: (
      <LeaveGuardProvider>
        <ScrollToTop />
        <FocusNewPage />
        <AppRoutes />
      </LeaveGuardProvider>
    ),
  },
];

export default function App() {
  const [router] = useState(() => createBrowserRouter(appRoutes));
  return (
    <Providers>
      <DemoBanner />
      <OfflineBanner />
      <RouterProvider router={router} />
    </Providers>
  );
}
