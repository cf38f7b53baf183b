import { useEffect } from 'react';
import { dismissToasts } from '../lib/toast';

/** SPEC §9: a toast is dismissed by a swipe to the right of more than this many pixels. */
export const TOAST_SWIPE_THRESHOLD_PX = 50;

/** The toast on screen: in a dialog (components/DialogToasts.tsx) or in its corner (antd's notification). */
const TOAST_SELECTOR = '.dialog-toast__alert, .ant-notification-notice';

function shownToast(): HTMLElement | null {
  const toasts = document.querySelectorAll<HTMLElement>(TOAST_SELECTOR);
  return toasts[toasts.length - 1] ?? null;
}

/**
 * The toast's keyboard and touch controls (SPEC §9): F8 moves the focus to the toast on screen, so a keyboard or
 * screen reader user can read it and reach its close button; a swipe right of more than 50 px dismisses it (less
 * springs it back). Listeners on the document, as antd renders its notices outside the app's tree.
 */
export function ToastControls() {
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key !== 'F8' || event.altKey || event.ctrlKey || event.metaKey) return;
      const toast = shownToast();
      if (!toast) return;
      event.preventDefault();
      if (!toast.hasAttribute('tabindex')) toast.tabIndex = -1;
      toast.focus();
    };

    let swipe: { toast: HTMLElement; pointerId: number; startX: number; dx: number } | null = null;
    const onPointerDown = (event: PointerEvent) => {
      const target = event.target as Element | null;
      const toast = target?.closest<HTMLElement>(TOAST_SELECTOR);
      if (!toast || target?.closest('button, a') || event.button !== 0) return;
      swipe = { toast, pointerId: event.pointerId, startX: event.clientX, dx: 0 };
      toast.style.transition = 'none';
    };
    const onPointerMove = (event: PointerEvent) => {
      if (!swipe || event.pointerId !== swipe.pointerId) return;
      swipe.dx = Math.max(0, event.clientX - swipe.startX);
      swipe.toast.style.transform = swipe.dx ? `translateX(${swipe.dx}px)` : '';
    };
    const onPointerEnd = (event: PointerEvent) => {
      if (!swipe || event.pointerId !== swipe.pointerId) return;
      const { toast, dx } = swipe;
      swipe = null;
      toast.style.transition = '';
      if (event.type === 'pointerup' && dx > TOAST_SWIPE_THRESHOLD_PX) dismissToasts();
      else toast.style.transform = '';
    };

    document.addEventListener('keydown', onKeyDown);
    document.addEventListener('pointerdown', onPointerDown);
    document.addEventListener('pointermove', onPointerMove);
    document.addEventListener('pointerup', onPointerEnd);
    document.addEventListener('pointercancel', onPointerEnd);
    return () => {
      document.removeEventListener('keydown', onKeyDown);
      document.removeEventListener('pointerdown', onPointerDown);
      document.removeEventListener('pointermove', onPointerMove);
      document.removeEventListener('pointerup', onPointerEnd);
      document.removeEventListener('pointercancel', onPointerEnd);
    };
  }, []);
  return null;
}
