import { Alert } from 'antd';
import { useCallback, useEffect, useRef, useState } from 'react';
import { createPortal } from 'react-dom';
import { bindDialogToaster, cornerToast, TOAST_DURATION_SECONDS, type ToastInput } from '../lib/toast';

/** Open, and not on its way out (antd's closing zoom puts ant-zoom-leave on it; a closed one's wrap is display: none). */
function isOpen(dialog: HTMLElement): boolean {
  const wrap = dialog.closest<HTMLElement>('.ant-modal-wrap');
  return dialog.isConnected && !!wrap && wrap.style.display !== 'none' && !/-leave(\s|$)/.test(dialog.className);
}

/** The dialog a toast would lie over now: the last antd dialog open (one opened from another comes after it). */
function openDialog(): HTMLElement | null {
  const dialogs = [...document.querySelectorAll<HTMLElement>('.ant-modal-wrap .ant-modal')].filter(isOpen);
  return dialogs[dialogs.length - 1] ?? null;
}

interface Shown {
  id: number;
  input: ToastInput;
  dialog: HTMLElement;
  host: HTMLElement;
  shownAt: number;
}

/**
 * Toasts that come while a dialog is open show in the dialog, at its end, under the buttons just used (it moves
 * nothing of the dialog, and is scrolled into view): in the corner they lay over its close button or its buttons for
 * 5 s (a toast already up when a dialog opens goes under it, theme.ts). One stays until the next toast, its own close
 * button or the dialog's closing. If the dialog closes within a toast's 5 s (a save that closes it), the toast goes
 * on in the dialog still open under it, if any, or in its usual place for the rest of its time.
 */
export function DialogToasts() {
  const [shown, setShown] = useState<Shown | null>(null);
  const current = useRef<Shown | null>(null);
  const ids = useRef(0);

  const clear = useCallback(() => {
    current.current?.host.remove();
    current.current = null;
    setShown(null);
  }, []);

  const show = useCallback((input: ToastInput): boolean => {
    const dialog = openDialog();
    const container = dialog?.querySelector<HTMLElement>('.ant-modal-container');
    if (!dialog || !container) return false;
    current.current?.host.remove();
    // After what antd renders (body, footer), not in it: React never rearranges what it did not put there.
    const host = document.createElement('div');
    host.className = 'dialog-toast';
    container.append(host);
    current.current = { id: ++ids.current, input, dialog, host, shownAt: Date.now() };
    setShown(current.current);
    return true;
  }, []);

  useEffect(() => {
    bindDialogToaster({ show, dismiss: clear });
    return () => bindDialogToaster(null);
  }, [show, clear]);

  useEffect(() => {
    if (!shown) return;
    // Below a tall dialog's end, out of view: scrolled to, once laid out at its size, and again when the dialog above
    // it changes size, which moves it without resizing it (a failed save's toast comes while the form still says
    // "Saving..."). In its first 2.5 s only, not to take a person away from what they scrolled to after; its opening
    // motion can take over a second on a busy phone.
    const sized = typeof ResizeObserver === 'function' ? new ResizeObserver(() => shown.host.scrollIntoView?.({ block: 'nearest' })) : null;
    sized?.observe(shown.host);
    sized?.observe(shown.dialog);
    const settled = setTimeout(() => sized?.disconnect(), 2500);
    const watch = setInterval(() => {
      if (isOpen(shown.dialog)) return;
      clear();
      const left = TOAST_DURATION_SECONDS * 1000 - (Date.now() - shown.shownAt);
      if (left > 1000 && !show(shown.input)) cornerToast(shown.input, left / 1000);
    }, 100);
    return () => {
      sized?.disconnect();
      clearTimeout(settled);
      clearInterval(watch);
    };
  }, [shown, show, clear]);

  if (!shown) return null;
  const { title, description, variant = 'default' } = shown.input;
  return createPortal(
    <Alert
      key={shown.id}
      className="dialog-toast__alert"
      type={variant === 'destructive' ? 'error' : variant === 'success' ? 'success' : 'info'}
      showIcon
      title={title}
      description={description}
      role={variant === 'destructive' ? 'alert' : 'status'}
      closable={{ 'aria-label': 'Dismiss message', onClose: clear }}
    />,
    shown.host,
  );
}
