import { dropped } from '../lib/focus';
import { useMoveToNewPage } from '../lib/newPage';

/** How long a new page may take to show its heading (a lazy page's code, its first data). */
const WAIT_MS = 5_000;

/** The heading of the page shown now. */
const pageHeading = () => document.querySelector<HTMLElement>('main h1');

/**
 * A new page takes the focus to its heading, so a screen reader says where the person is: the router changes the
 * page without the browser's own navigation, and the focus stayed on the link that was followed (or fell to the
 * page), with nothing said (a keyboard review, 11-28). Only for links followed from the bar, the menu, or from a page
 * they took away, and Back and Forward (whose page took the focus away with it; not a #part), and only while the
 * focus is where the move left it. A page that focuses something of its own keeps it.
 */
export function FocusNewPage() {
  useMoveToNewPage(() => {
    // The layout effect runs once the new location is on the page: its heading, or a lazy page's placeholder.
    const from = document.activeElement;
    const inNavigation = (el: Element | null) => dropped(el) || !!el?.closest('header, nav, .ant-drawer');
    // A move made from the page itself (Leave group's confirmation, Back to Groups) puts the focus where that page
    // says (focus.ts): only a link of the bar, the menu or a link that went with its page hands it to the heading.
    if (!inNavigation(from)) return;
    const untouched = () => {
      const focused = document.activeElement;
      return focused === from || inNavigation(focused);
    };
    const tryFocus = () => {
      const heading = pageHeading();
      if (!heading) return false;
      if (untouched()) {
        if (!heading.hasAttribute('tabindex')) heading.setAttribute('tabindex', '-1');
        heading.focus({ preventScroll: true });
      }
      return true;
    };
    if (tryFocus()) return;
    const observer = new MutationObserver(() => tryFocus() && observer.disconnect());
    observer.observe(document.body, { childList: true, subtree: true });
    const timer = setTimeout(() => observer.disconnect(), WAIT_MS);
    return () => {
      observer.disconnect();
      clearTimeout(timer);
    };
  }, { backAndForward: true });
  return null;
}
