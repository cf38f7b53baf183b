import { type EffectCallback, useLayoutEffect, useRef } from 'react';
import { useLocation, useNavigationType } from 'react-router-dom';

/**
 * Runs `effect` (in a layout effect: the new location is on the page, its own effects not run yet) after each move
 * to a new page made by a link or the app: not for the tab's first page (where the browser put it), Back and Forward
 * (POP: the browser restores their scroll), nor a link to a part of a page (#id), which goes there itself. The router
 * changes the page without the browser's own navigation, so what the browser would do on a new page (top of it,
 * focus at its start) is done here. `backAndForward`: after Back and Forward too (for the focus: the page that held
 * it is gone, and the browser puts it nowhere).
 */
export function useMoveToNewPage(effect: EffectCallback, { backAndForward = false }: { backAndForward?: boolean } = {}): void {
  const { key, hash } = useLocation();
  const type = useNavigationType();
  const first = useRef(true);
  useLayoutEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    if ((type === 'POP' && !backAndForward) || hash) return;
    // Only a function is a clean-up: an arrow's value that is not one (Chromium's scrollTo answers a promise) would be
    // called as one when the page changes again, and take the whole app down (found 11-28).
    const cleanup = effect();
    return typeof cleanup === 'function' ? cleanup : undefined;
    // Once per location, not per render: the caller's effect is made anew at each render.
  }, [key, hash, type, backAndForward]);
}
