import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { App as AntApp, Modal } from 'antd';
import { useState } from 'react';
import { bindNotifier, cornerToast, dismissToasts, toast, TOASTS } from '../lib/toast';
import { DialogToasts } from './DialogToasts';

jest.setTimeout(30_000);

const notifier = { error: jest.fn(), success: jest.fn(), info: jest.fn(), warning: jest.fn(), open: jest.fn(), destroy: jest.fn() };

/** A dialog whose Save fails (its error toast comes while it is open) and whose Done closes it with a toast. */
function Page() {
  const [open, setOpen] = useState(true);
  return (
    <Modal open={open} title="Edit rating" footer={null} onCancel={() => setOpen(false)}>
      <button onClick={() => toast(TOASTS.ratingFailed)}>Save</button>
      <button
        onClick={() => {
          toast(TOASTS.ratingUpdated);
          setOpen(false);
        }}
      >
        Done
      </button>
    </Modal>
  );
}

function renderPage() {
  render(
    <AntApp>
      <DialogToasts />
      <Page />
    </AntApp>,
  );
}

beforeEach(() => {
  jest.clearAllMocks();
  bindNotifier(notifier);
});

describe('a toast that comes while a dialog is open', () => {
  it('shows in the dialog, read out as an alert, and not in the corner over the dialog', async () => {
    renderPage();
    const dialog = await screen.findByRole('dialog', { name: 'Edit rating' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    const message = await within(dialog).findByRole('alert');
    expect(message).toHaveTextContent('Failed to save rating. Please try again.');
    expect(notifier.error).not.toHaveBeenCalled();
    // Its own close button takes it away; dismissToasts too.
    fireEvent.click(within(dialog).getByRole('button', { name: 'Dismiss message' }));
    await waitFor(() => expect(within(dialog).queryByRole('alert')).not.toBeInTheDocument());
    fireEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    await within(dialog).findByRole('alert');
    act(() => dismissToasts());
    await waitFor(() => expect(within(dialog).queryByRole('alert')).not.toBeInTheDocument());
  });

  it('is the one toast on screen: it takes the corner toast away, and a corner toast takes it away (SPEC §9)', async () => {
    renderPage();
    const dialog = await screen.findByRole('dialog', { name: 'Edit rating' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    await within(dialog).findByRole('alert');
    expect(notifier.destroy).toHaveBeenCalledTimes(1);
    act(() => cornerToast(TOASTS.inviteCopied));
    await waitFor(() => expect(within(dialog).queryByRole('alert')).not.toBeInTheDocument());
    expect(notifier.success).toHaveBeenCalledTimes(1);
  });

  it('goes on in its usual place when the dialog closes within its time (a save that closes the dialog)', async () => {
    renderPage();
    const dialog = await screen.findByRole('dialog', { name: 'Edit rating' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Done' }));
    await waitFor(() => expect(notifier.success).toHaveBeenCalledWith(expect.objectContaining({ title: 'Rating Updated', role: 'status' })));
    expect(notifier.success.mock.calls[0][0].duration).toBeLessThanOrEqual(5);
  });

  it('with no dialog open, is a toast as before', () => {
    render(
      <AntApp>
        <DialogToasts />
      </AntApp>,
    );
    act(() => toast(TOASTS.groupLeft));
    expect(notifier.success).toHaveBeenCalledWith(expect.objectContaining({ title: 'You left the group', duration: 5 }));
  });
});
