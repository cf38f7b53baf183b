import {
  AppstoreOutlined,
  BarChartOutlined,
  DashboardOutlined,
  CalendarOutlined,
  GiftOutlined,
  HomeOutlined,
  QuestionCircleOutlined,
  SettingOutlined,
  TeamOutlined,
} from '@ant-design/icons';
import { lazy, type ComponentType, type LazyExoticComponent, type ReactNode } from 'react';

/**
 * The route table (SPEC §2). Pages other than the landing page are lazy-loaded, so the signed-out
 * visitor downloads only the landing page; chart-heavy pages load ECharts only when opened.
 * To add or replace a page: change its module under pages/ (or add a row here).
 */
export interface PageRoute {
  path: string;
  title: string;
  Component: LazyExoticComponent<ComponentType>;
}

/** Signed-in pages besides Home ("/"). */
export const SIGNED_IN_ROUTES: PageRoute[] = [
  { path: '/dashboard', title: 'Your Joy Dashboard', Component: lazy(() => import('./pages/Dashboard')) },
  { path: '/groups', title: 'Your Groups', Component: lazy(() => import('./pages/Groups')) },
  { path: '/insights', title: 'Joy Insights', Component: lazy(() => import('./pages/Insights')) },
  { path: '/history', title: 'Your History', Component: lazy(() => import('./pages/History')) },
  { path: '/subscribe', title: 'Joy Premium', Component: lazy(() => import('./pages/Subscribe')) },
  { path: '/logos', title: 'Logo Concepts', Component: lazy(() => import('./pages/Logos')) },
  { path: '/account', title: 'Your Account', Component: lazy(() => import('./pages/Account')) },
  { path: '/settings', title: 'Settings', Component: lazy(() => import('./pages/Settings')) },
  { path: '/care/sent', title: 'Care You Sent', Component: lazy(() => import('./pages/CareSent')) },
];

/** Pages open to everyone, signed in or not. */
export const ALWAYS_ROUTES: PageRoute[] = [
  { path: '/privacy', title: 'Privacy Policy', Component: lazy(() => import('./pages/Privacy')) },
  { path: '/terms', title: 'Terms of Service', Component: lazy(() => import('./pages/Terms')) },
  { path: '/help', title: 'Help & Support', Component: lazy(() => import('./pages/Help')) },
];

export const HomePage = lazy(() => import('./pages/Home'));

/** The account page's link: in the user menu (desktop) and in the drawer. */
export const ACCOUNT_LINK = { to: '/account', label: 'Account' } as const;

/**
 * Care sent (a Joy Premium feature): in the navigation after Groups for premium members, where free members see
 * Upgrade at the end instead; the page itself is open to everyone signed in (care sent before a plan ended).
 */
export const CARE_SENT_LINK = { to: '/care/sent', label: 'Care Sent', icon: <GiftOutlined aria-hidden="true" /> } as const;

/** Links of the signed-in navigation bar, in order. Upgrade (/subscribe) is added for free users, Care Sent for premium ones. */
export const NAV_LINKS: ReadonlyArray<{ to: string; label: string; icon: ReactNode }> = [
  { to: '/', label: 'Home', icon: <HomeOutlined aria-hidden="true" /> },
  { to: '/dashboard', label: 'Dashboard', icon: <DashboardOutlined aria-hidden="true" /> },
  { to: '/groups', label: 'Groups', icon: <TeamOutlined aria-hidden="true" /> },
  { to: '/insights', label: 'Insights', icon: <BarChartOutlined aria-hidden="true" /> },
  { to: '/history', label: 'History', icon: <CalendarOutlined aria-hidden="true" /> },
  { to: '/settings', label: 'Settings', icon: <SettingOutlined aria-hidden="true" /> },
  { to: '/help', label: 'Help', icon: <QuestionCircleOutlined aria-hidden="true" /> },
  { to: '/logos', label: 'Logos', icon: <AppstoreOutlined aria-hidden="true" /> },
];
