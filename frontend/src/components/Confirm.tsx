import { Popconfirm, type PopconfirmProps } from 'antd';
import { useEffect, useId, useRef, useState } from 'react';
import { dropped, focusContainerWhenRemoved, focusWhenEnabled } from '../lib/focus';

/**
 * A Popconfirm that a keyboard can use: each time it opens, the focus moves onto its cancel button (Tab then reaches
 * the action, not the next row), and when it closes the focus goes back to the button that opened it. Focused on
 * every opening, not with `autoFocus`: antd keeps a closed popup, and autoFocus acts only when one is created.
 */
export function Confirm({ cancelButtonProps, okButtonProps, onOpenChange, title, description, ...props }: PopconfirmProps) {
  const [open, setOpen] = useState(false);
  // The question is in a popup a screen reader does not read by itself (role tooltip): its buttons are described
  // by it, so that the focus arriving on "Keep it" reads the question too.
  const questionId = useId();
  const detailId = useId();
  const describedBy = [questionId, description ? detailId : ''].filter(Boolean).join(' ');
  const opener = useRef<HTMLElement | null>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (!open) return;
    // The popup is drawn in this commit or the next frame. The second try leaves a focus already in the question
    // alone: a quick Tab to the action would otherwise be taken back to the cancel button.
    cancel.current?.focus();
    const frame = requestAnimationFrame(() => {
      if (!cancel.current?.closest('.confirm')?.contains(document.activeElement)) cancel.current?.focus();
    });
    return () => cancelAnimationFrame(frame);
  }, [open]);
  return (
    <Popconfirm
      {...props}
      title={typeof title === 'function' ? title : <span id={questionId}>{title}</span>}
      description={description && typeof description !== 'function' ? <span id={detailId}>{description}</span> : description}
      // Kept clear of a phone's edges (styles.css, .confirm).
      classNames={{ root: 'confirm' }}
      open={open}
      okButtonProps={{ ...okButtonProps, 'aria-describedby': describedBy } as PopconfirmProps['okButtonProps']}
      // (React 19 passes a ref given as a prop on to the button.)
      cancelButtonProps={{ ...cancelButtonProps, ref: cancel, 'aria-describedby': describedBy } as PopconfirmProps['cancelButtonProps']}
      onOpenChange={(next) => {
        if (next) opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
        // Back to the button, and again once its action has run (it may be disabled meanwhile); if the action
        // takes the button away (its row deleted), to the list or card it was in.
        else if (opener.current?.isConnected) {
          focusWhenEnabled(opener.current, (focused) => dropped(focused) || !!focused?.closest('.confirm'));
          focusContainerWhenRemoved(opener.current);
        }
        setOpen(next);
        onOpenChange?.(next);
      }}
    />
  );
}
