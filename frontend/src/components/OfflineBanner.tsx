import { WifiOutlined } from '@ant-design/icons';
import { useEffect, useLayoutEffect, useRef, useState, useSyncExternalStore } from 'react';

/*
 * The banner's height while it shows (0 otherwise): it stays at the top of the screen and the sticky top bar stays
 * just under it (--joy-offline-height, styles.css), so that scrolled, a person still sees they are offline and the
 * bar's links and menu button are still uncovered; toasts under the bar move down as much (App.tsx).
 */
let bannerHeight = 0;
const listeners = new Set<() => void>();

function setBannerHeight(height: number) {
  if (height === bannerHeight) return;
  bannerHeight = height;
  if (height > 0) document.documentElement.style.setProperty('--joy-offline-height', `${height}px`);
  else document.documentElement.style.removeProperty('--joy-offline-height');
  listeners.forEach((listener) => listener());
}

/** The offline banner's height in px, 0 while it is not shown. */
export function useOfflineBannerHeight(): number {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => bannerHeight,
    () => 0,
  );
}

/** "You are offline" while the browser has no connection (also shown by the service worker's cached shell). */
export function OfflineBanner() {
  const [offline, setOffline] = useState(() => typeof navigator !== 'undefined' && navigator.onLine === false);
  const banner = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const update = () => setOffline(!navigator.onLine);
    window.addEventListener('online', update);
    window.addEventListener('offline', update);
    return () => {
      window.removeEventListener('online', update);
      window.removeEventListener('offline', update);
    };
  }, []);
  // Measured before the first paint, and again as its text wraps differently (a phone turned, a window resized).
  useLayoutEffect(() => {
    const element = banner.current;
    if (!offline || !element) return;
    const measure = () => setBannerHeight(element.getBoundingClientRect().height);
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => {
      observer.disconnect();
      setBannerHeight(0);
    };
  }, [offline]);
  if (!offline) return null;
  return (
    <div ref={banner} className="offline-banner" role="alert">
      {/* Short: two lines on a narrow phone, where it stays on the screen with the bar. */}
      <WifiOutlined aria-hidden="true" /> <strong>You are offline.</strong> Joy reconnects by itself; a rating you save now is sent once you are back online.
    </div>
  );
}
