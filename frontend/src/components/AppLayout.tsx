import { CrownOutlined, LogoutOutlined, MenuOutlined, UserOutlined } from '@ant-design/icons';
import { Avatar, Button, Drawer } from 'antd';
import { Suspense, useRef, useState } from 'react';
import { NavLink, Outlet, useLocation } from 'react-router-dom';
import { useAuth, useSubscriptionStatus } from '../auth';
import { dropped } from '../lib/focus';
import { LOGOUT_URL, browser } from '../lib/session';
import { dismissToasts } from '../lib/toast';
import { dropUnsavedRating } from '../lib/unsavedRating';
import { forgetDeviceReminders } from '../settings/push';
import { displayName } from '../lib/user';
import { ACCOUNT_LINK, CARE_SENT_LINK, NAV_LINKS } from '../routes';
import { useAdoptBrowserTimeZone } from '../settings/api';
import { Brand } from './Brand';
import { PageErrorBoundary } from './PageErrorBoundary';
import { PageLoading } from './PageLoading';
import { SiteFooter } from './SiteFooter';
import { initialOf } from '@joy/domain';

function navClass({ isActive }: { isActive: boolean }) {
  return isActive ? 'nav-link is-active' : 'nav-link';
}

/** The account page (plan, renewal, cancellation) in the drawer; on desktop the greeting links there. */
function AccountLink({ onNavigate }: { onNavigate?: () => void }) {
  return (
    <NavLink to={ACCOUNT_LINK.to} className={navClass} onClick={onNavigate}>
      <UserOutlined aria-hidden="true" />
      <span>{ACCOUNT_LINK.label}</span>
    </NavLink>
  );
}

function NavLinks({ showUpgrade, showCareSent, onNavigate }: { showUpgrade: boolean; showCareSent: boolean; onNavigate?: () => void }) {
  const links = NAV_LINKS.flatMap((link) => (showCareSent && link.to === '/groups' ? [link, CARE_SENT_LINK] : [link]));
  return (
    <>
      {links.map((link) => (
        <NavLink key={link.to} to={link.to} end={link.to === '/'} className={navClass} onClick={onNavigate}>
          {link.icon}
          <span>{link.label}</span>
        </NavLink>
      ))}
      {showUpgrade && (
        <NavLink to="/subscribe" className={({ isActive }) => `${navClass({ isActive })} nav-link--upgrade`} onClick={onNavigate}>
          <CrownOutlined aria-hidden="true" />
          <span>Upgrade</span>
        </NavLink>
      )}
    </>
  );
}

/** Frame of every signed-in page: navigation bar (desktop links or a drawer on narrow screens), page, footer. */
export function AppLayout() {
  const { user } = useAuth();
  const subscription = useSubscriptionStatus(!!user);
  useAdoptBrowserTimeZone(!!user);
  const [drawerOpen, setDrawerOpen] = useState(false);
  const menuButton = useRef<HTMLButtonElement>(null);
  const { pathname } = useLocation();
  const name = displayName(user);
  // A paused plan (lapsed) is paid again through the billing portal, not bought twice: no Upgrade.
  const showUpgrade = subscription.data?.isPremium === false && subscription.data.status !== 'lapsed';
  const showCareSent = subscription.data?.isPremium === true;
  const signOut = async () => {
    dropUnsavedRating(); // a rating kept for after a sign-in is not for whoever signs in next
    await forgetDeviceReminders(); // nor are this person's reminders (a shared browser)
    browser.navigate(LOGOUT_URL);
  };
  const avatar = (
    <Avatar src={user?.profileImageUrl || undefined} size={32} className="user-avatar" alt="">
      {initialOf(name)}
    </Avatar>
  );

  return (
    <div className="shell">
      <a href="#main" className="skip-link">
        Skip to content
      </a>
      <header className="topbar">
        <div className="topbar__inner">
          <Brand />
          <nav aria-label="Main" className="nav-desktop">
            <NavLinks showUpgrade={showUpgrade} showCareSent={showCareSent} />
          </nav>
          <div className="nav-user nav-desktop">
            {/* The user menu: the greeting leads to the account page (plan, renewal, cancellation). */}
            <NavLink to={ACCOUNT_LINK.to} className={navClass} title="Your account" style={{ paddingBlock: 4, paddingInlineStart: 4 }}>
              {avatar}
              <span className="nav-user__greeting">Hi, {name}</span>
              <span className="visually-hidden"> — {ACCOUNT_LINK.label}</span>
            </NavLink>
            <Button icon={<LogoutOutlined aria-hidden="true" />} onClick={signOut}>
              Sign Out
            </Button>
          </div>
          <Button
            ref={menuButton}
            className="nav-toggle"
            type="text"
            size="large"
            icon={<MenuOutlined aria-hidden="true" />}
            aria-label="Open menu"
            aria-expanded={drawerOpen}
            aria-controls="nav-drawer"
            onClick={() => {
              // A toast at the bottom of a phone would sit over the menu's last links (Sign Out) for seconds.
              dismissToasts();
              setDrawerOpen(true);
            }}
          />
        </div>
      </header>
      <Drawer
        id="nav-drawer"
        title="Menu"
        placement="right"
        size={300}
        open={drawerOpen}
        onClose={() => setDrawerOpen(false)}
        // Closed by a link, the focus is on the new page's heading (FocusNewPage): antd would take it back to the
        // menu button as the drawer's motion ends. Closed otherwise (Escape, its close button), it goes back there.
        focusable={{ focusTriggerAfterClose: false }}
        afterOpenChange={(open) => {
          if (!open && (dropped() || document.activeElement?.closest('.ant-drawer'))) menuButton.current?.focus({ preventScroll: true });
        }}
        className="nav-drawer"
      >
        <div className="nav-drawer__user">
          {avatar}
          <span>Hi, {name}</span>
        </div>
        <nav aria-label="Main" className="nav-drawer__links">
          <NavLinks showUpgrade={showUpgrade} showCareSent={showCareSent} onNavigate={() => setDrawerOpen(false)} />
          <AccountLink onNavigate={() => setDrawerOpen(false)} />
        </nav>
        <Button block size="large" icon={<LogoutOutlined aria-hidden="true" />} onClick={signOut} className="nav-drawer__signout">
          Sign Out
        </Button>
      </Drawer>
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
