/**
 * A button's label that changes while its action runs ("Save Changes" → "Saving...") without changing the button's
 * width: both labels share one grid cell and the other one is hidden (out of the accessible name too). Otherwise a
 * shorter busy label lets the buttons' row unwrap and the dialog jumps by a line under the person's pointer.
 */
export function BusyLabel({ busy, label, busyLabel }: { busy: boolean; label: string; busyLabel: string }) {
  return (
    <span className="busy-label">
      <span style={busy ? HIDDEN : undefined}>{label}</span>
      <span style={busy ? undefined : HIDDEN}>{busyLabel}</span>
    </span>
  );
}

const HIDDEN = { visibility: 'hidden' } as const;
