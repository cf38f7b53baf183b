import { Button, Modal } from 'antd';
import { createContext, type ReactNode, useCallback, useContext, useEffect, useId, useRef } from 'react';
import { type BlockerFunction, useBeforeUnload, useBlocker } from 'react-router-dom';

/*
 * Asking before unsaved changes are left behind: changed settings, or a rating with its note, were lost without a
 * word when the person went on to another page (a review, 11-27). A form says what it holds unsaved
 * (useLeaveGuard); the one guard of the app (LeaveGuardProvider, under the data router: a router takes one blocker)
 * asks "Leave without saving?" before a move inside the app (the bar, the menu, a link, Back) to another page,
 * whose first button keeps the person where they were, and lets the browser ask its own question before a reload
 * or closing the tab. Moves within the page (its query, a #part) are not asked about.
 */

type Unsaved = Map<string, string>;
const UnsavedContext = createContext<Unsaved | null>(null);

export function LeaveGuardProvider({ children }: { children: ReactNode }) {
  /** What each form holds unsaved now: its message, by the form's id. */
  const unsaved = useRef<Unsaved>(new Map()).current;
  const blocker = useBlocker(
    useCallback<BlockerFunction>(({ currentLocation, nextLocation }) => unsaved.size > 0 && currentLocation.pathname !== nextLocation.pathname, [unsaved]),
  );
  useBeforeUnload(
    useCallback(
      (event: BeforeUnloadEvent) => {
        if (unsaved.size === 0) return;
        event.preventDefault();
        // Older browsers ask only when a value is set.
        event.returnValue = '';
      },
      [unsaved],
    ),
  );
  const stay = useRef<HTMLButtonElement>(null);
  const blocked = blocker.state === 'blocked';
  return (
    <UnsavedContext.Provider value={unsaved}>
      {children}
      <Modal
        open={blocked}
        title="Leave without saving?"
        onCancel={() => blocker.reset?.()}
        afterOpenChange={(open) => open && stay.current?.focus()}
        footer={[
          <Button key="stay" ref={stay} onClick={() => blocker.reset?.()}>
            Stay on this page
          </Button>,
          <Button key="leave" danger onClick={() => blocker.proceed?.()}>
            Leave without saving
          </Button>,
        ]}
      >
        {blocked && ([...unsaved.values()][0] ?? '')}
      </Modal>
    </UnsavedContext.Provider>
  );
}

/** Says that this form holds unsaved changes (`message` says which) while `unsaved` is true; nothing outside a LeaveGuardProvider. */
export function useLeaveGuard(unsaved: boolean, message: string): void {
  const forms = useContext(UnsavedContext);
  const id = useId();
  useEffect(() => {
    if (!forms) return;
    if (unsaved) forms.set(id, message);
    else forms.delete(id);
    return () => {
      forms.delete(id);
    };
  }, [forms, id, unsaved, message]);
}
