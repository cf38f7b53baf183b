import { useLayoutEffect, useRef } from 'react';
import { useLocation, useNavigationType } from 'react-router-dom';

/**
 * A new page starts at its top. The router changes the page without the browser's own navigation, so the window kept
 * the place of the one before: after Leave group the list showed where the button had been, far down. Back and
 * Forward (POP) keep the browser's own scroll restoration, and a link to a part of a page (#id) goes there itself.
 * In a layout effect, before the page's own effects: a page that focuses something after the change (Groups' View
 * button, back from a group) scrolls it into view after this.
 */
export function ScrollToTop() {
  const { key, hash } = useLocation();
  const type = useNavigationType();
  const first = useRef(true);
  useLayoutEffect(() => {
    // The first page of the tab is where the browser put it (at the top, or back where a reload was).
    if (first.current) {
      first.current = false;
      return;
    }
    if (type === 'POP' || hash) return;
    // At once: a smooth scroll would show the old page scrolling by.
    window.scrollTo({ top: 0, left: 0, behavior: 'instant' });
  }, [key, hash, type]);
  return null;
}
