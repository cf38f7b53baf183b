import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { Button } from 'antd';
import { useState } from 'react';
import { Confirm } from './Confirm';

/** A button whose confirmed action takes a while, disabled meanwhile (as New invite code is). */
function SlowAction({ ms }: { ms: number }) {
  const [pending, setPending] = useState(false);
  return (
    <Confirm
      title="Get a new invite code?"
      okText="New invite code"
      cancelText="Keep code"
      onConfirm={() => {
        setPending(true);
        setTimeout(() => setPending(false), ms);
      }}
    >
      <Button disabled={pending}>Change</Button>
    </Confirm>
  );
}

/** What a browser does when the focused button is disabled: the focus falls to the page (jsdom keeps it there). */
function dropFocus() {
  const away = document.createElement('input');
  document.body.append(away);
  away.focus();
  away.remove();
}

/**
 * Opens the question from its focused button, confirms, and waits until the action runs: the button disabled, and
 * the focus dropped to the page as a browser drops it. Answers the button.
 */
async function confirmSlowAction(): Promise<HTMLElement> {
  const opener = screen.getByRole('button', { name: 'Change' });
  opener.focus();
  fireEvent.click(opener);
  await waitFor(() => expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Keep code' })));
  fireEvent.click(screen.getByRole('button', { name: 'New invite code' }));
  await waitFor(() => expect(opener).toBeDisabled());
  act(dropFocus);
  expect(document.activeElement).toBe(document.body);
  return opener;
}

describe('Confirm', () => {
  it('reads the question with its buttons: they are described by the title and the detail (a screen reader skips the popup)', async () => {
    render(
      <Confirm title="Remove Passkey 1?" description="You will no longer be able to sign in with it." okText="Remove passkey" cancelText="Keep it">
        <Button>Remove</Button>
      </Confirm>,
    );
    fireEvent.click(screen.getByRole('button', { name: 'Remove' }));
    const keep = await screen.findByRole('button', { name: 'Keep it' });
    expect(keep).toHaveAccessibleDescription('Remove Passkey 1? You will no longer be able to sign in with it.');
    expect(screen.getByRole('button', { name: 'Remove passkey' })).toHaveAccessibleDescription('Remove Passkey 1? You will no longer be able to sign in with it.');
  });

  it('takes the focus into the question, and gives it back to its button once the action has run', async () => {
    render(<SlowAction ms={50} />);
    const opener = await confirmSlowAction();
    // The focus comes back when the button can take it again.
    await waitFor(() => expect(opener).toBeEnabled());
    await waitFor(() => expect(document.activeElement).toBe(opener));
  });

  it('leaves the focus where the person moved it while the action ran', async () => {
    render(
      <>
        <SlowAction ms={100} />
        <input aria-label="Elsewhere" />
      </>,
    );
    const opener = await confirmSlowAction();
    act(() => screen.getByLabelText('Elsewhere').focus());
    await waitFor(() => expect(opener).toBeEnabled());
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(document.activeElement).toBe(screen.getByLabelText('Elsewhere'));
  });
});
