import { useMoveToNewPage } from '../lib/newPage';

/**
 * A new page starts at its top: the window kept the place of the one before (after Leave group the list showed
 * where the button had been, far down). In a layout effect, before the page's own effects: a page that focuses
 * something after the change (Groups' View button, back from a group) scrolls it into view after this.
 */
export function ScrollToTop() {
  useMoveToNewPage(() => {
    // At once: a smooth scroll would show the old page scrolling by. (A statement, not the arrow's value: Chromium's
    // scrollTo answers a promise, which React would take for the effect's clean-up and call.)
    window.scrollTo({ top: 0, left: 0, behavior: 'instant' });
  });
  return null;
}
