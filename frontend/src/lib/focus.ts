/**
 * Keeping a keyboard user's place. A browser drops the focus of a button that becomes disabled (a button disabled
 * while its request runs, as Save Rating and New invite code are) or that leaves the page (the row of a deleted
 * rating): the focus falls to the page, and the next Tab starts again at "Skip to content".
 */

/** Where a dropped focus lands: the page itself (or nowhere). */
export const dropped = (focused: Element | null = document.activeElement) => !focused || focused === document.body;

/**
 * Focuses `button` now, and again once it is enabled after being disabled, unless the person has moved the focus
 * since (`leftHere` says where a focus counts as not moved: the page, by default).
 */
export function focusWhenEnabled(button: HTMLElement, leftHere: (focused: Element | null) => boolean = dropped): void {
  button.focus();
  if (!(button instanceof HTMLButtonElement || button instanceof HTMLInputElement || button instanceof HTMLTextAreaElement)) return;
  let wasDisabled = button.disabled;
  const observer = new MutationObserver(() => {
    if (button.disabled) {
      wasDisabled = true;
      return;
    }
    if (!wasDisabled) return;
    observer.disconnect();
    if (button.isConnected && leftHere(document.activeElement)) button.focus();
  });
  observer.observe(button, { attributes: true, attributeFilter: ['disabled'] });
  // An action that never ends (the page left meanwhile) does not keep the observer.
  setTimeout(() => observer.disconnect(), 30_000);
}

/**
 * When `element` leaves the page (its row deleted) while the focus is on it or dropped, the focus goes to the
 * nearest of its containers still there that says where the person is: a list, a table, a card or a dialog (made
 * focusable for this, not for Tab). Watches for 30 s at most.
 */
export function focusContainerWhenRemoved(element: HTMLElement): void {
  const focusContainer = focusContainerOf(element);
  const observer = new MutationObserver(() => {
    if (element.isConnected) return;
    observer.disconnect();
    if (dropped(document.activeElement)) focusContainer();
  });
  observer.observe(document.body, { childList: true, subtree: true });
  setTimeout(() => observer.disconnect(), 30_000);
}

const CONTAINERS = 'li, ul, ol, table, [role="list"], .ant-card, [role="dialog"], section, main';

/**
 * A function that focuses the nearest container of `element` still on the page (made focusable for this, not for
 * Tab): made while the element is there (its containers are noted), called once it may be gone.
 */
export function focusContainerOf(element: HTMLElement): () => void {
  const containers: HTMLElement[] = [];
  for (let node = element.parentElement; node && node !== document.body; node = node.parentElement) {
    if (node.matches(CONTAINERS)) containers.push(node);
  }
  const focus = () => {
    const container = containers.find((c) => c.isConnected);
    if (!container) return;
    if (!container.hasAttribute('tabindex')) container.setAttribute('tabindex', '-1');
    // The page itself (main) is in view wherever it is scrolled: focusing it scrolled it to its top edge, a few pixels
    // under where a new page starts (Leave group, back on the list).
    container.focus({ preventScroll: container.matches('main') });
  };
  return focus;
}

const TABBABLE = 'a[href], button:not([disabled]), input:not([disabled]):not([type="hidden"]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/** What Tab reaches inside `root`, in order: shown, enabled, and for a radio group only its checked radio. */
function tabbables(root: Element): HTMLElement[] {
  return [...root.querySelectorAll<HTMLElement>(TABBABLE)].filter((el) => {
    if (el.getClientRects().length === 0 || el.closest('[aria-hidden="true"], [inert]')) return false;
    if (el instanceof HTMLInputElement && el.type === 'radio' && el.name) {
      const group = [...root.querySelectorAll<HTMLInputElement>(`input[type="radio"][name="${CSS.escape(el.name)}"]`)];
      return group.some((r) => r.checked) ? el.checked : el === group[0];
    }
    return true;
  });
}

/**
 * Tab and Shift+Tab go round inside an open dialog, drawer or confirmation. antd 6 brings a focus that left one back only when
 * it lands on something else of the page; from the last button of a dialog (the last thing on the page), Tab left
 * the page for the browser's own controls, and the next Tab came back: one press with nothing of the dialog
 * focused (a keyboard review, 11-27). Installed once for the app; returns its removal.
 */
export function keepTabInDialogs(): () => void {
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key !== 'Tab' || event.defaultPrevented) return;
    const focused = document.activeElement;
    if (!(focused instanceof HTMLElement)) return;
    // The innermost open one the focus is in: a confirmation bubble (Delete this rating?) is a question to answer or
    // dismiss with Escape, so Tab goes round in it too, even inside a dialog.
    const dialog = [...document.querySelectorAll('.ant-modal-wrap, .ant-drawer, .ant-popconfirm')]
      .filter((el) => el.contains(focused) && el.getClientRects().length > 0)
      .sort((a, b) => (a.contains(b) ? 1 : b.contains(a) ? -1 : 0))[0];
    if (!dialog) return;
    const list = tabbables(dialog);
    if (list.length === 0) return;
    const [first, last] = [list[0], list[list.length - 1]];
    // The focus on the dialog itself (a drawer just opened): Tab goes to its first control, Shift+Tab to its last.
    const onItself = !list.includes(focused);
    const next = event.shiftKey ? (focused === first || onItself ? last : null) : focused === last || onItself ? first : null;
    if (!next) return;
    event.preventDefault();
    next.focus();
  };
  window.addEventListener('keydown', onKeyDown);
  return () => window.removeEventListener('keydown', onKeyDown);
}
