import { DeleteOutlined } from '@ant-design/icons';
import { Button, Card, Input, Modal, Typography } from 'antd';
import { useId, useState } from 'react';
import { useSubscriptionStatus } from '../auth';
import { ACCOUNT_DELETED, CONFIRMATION_WORD, isConfirmation, leaveAfterDeletion, useDeleteAccount } from './api';
import { useOneAtATime } from '../lib/requestKey';

/**
 * "Delete Account": a dialog says what happens and asks the person to type DELETE before the button works.
 * On success the dialog says goodbye until they leave for the landing page (signed out).
 */
export function DeleteAccountCard() {
  const [open, setOpen] = useState(false);
  const [typed, setTyped] = useState('');
  const remove = useDeleteAccount();
  // One deletion per press: Enter twice sent two.
  const oneAtATime = useOneAtATime();
  const inputId = useId();
  const deleted = remove.isSuccess;
  // Said to whoever has a plan to end (a paying, cancelling or lapsed one, or a grant), not to a free account.
  const plan = useSubscriptionStatus().data?.status;
  const hasPremiumToEnd = plan !== 'free' && plan !== 'ended';
  const close = () => {
    if (deleted) return leaveAfterDeletion();
    if (remove.isPending) return;
    setOpen(false);
    setTyped('');
  };

  return (
    <Card title={<h2 className="card-title">Delete Account</h2>}>
      <Typography.Paragraph className="account-data__text">
        Deleting your account erases your personal data for good. It cannot be undone.
      </Typography.Paragraph>
      <Button danger icon={<DeleteOutlined aria-hidden="true" />} onClick={() => setOpen(true)}>
        Delete account
      </Button>
      <Modal
        open={open}
        title={deleted ? ACCOUNT_DELETED.title : 'Delete your account?'}
        onCancel={close}
        okText="Delete my account"
        cancelText="Keep my account"
        okButtonProps={{ danger: true, disabled: !isConfirmation(typed), loading: remove.isPending }}
        onOk={() => oneAtATime((settled) => remove.mutate(undefined, { onSettled: settled }))}
        footer={
          deleted
            ? [
                <Button key="leave" type="primary" onClick={leaveAfterDeletion} autoFocus>
                  {ACCOUNT_DELETED.leave}
                </Button>,
              ]
            : undefined
        }
        destroyOnHidden
        width={520}
      >
        {deleted ? (
          <Typography.Paragraph role="status">{ACCOUNT_DELETED.text}</Typography.Paragraph>
        ) : (
          <>
            <Typography.Paragraph>This is permanent. When you delete your account:</Typography.Paragraph>
            <ul className="account-delete__list">
              <li>Your name, e-mail, picture and notes become unreadable everywhere Joy stored them (in backups, once they expire).</li>
              <li>Your ratings are no longer shown to anyone; the groups keep only anonymous numbers in their past weekly figures.</li>
              <li>Care you sent stays with the people who received it, with your message but not your name.</li>
              <li>You leave all your groups; the other members keep their groups.</li>
              {hasPremiumToEnd && <li>Joy Premium ends now, with no further charge.</li>}
              {/* True of both sign-ins: Joy's own deletes the password and passkeys with the account (signing in again says
                  "Wrong e-mail or password"); another provider's next sign-in links a new, empty account. */}
              <li>You are signed out on every device. To use Joy again later, you start over with a new, empty account.</li>
            </ul>
            <Typography.Paragraph>
              Want a copy first? Use <strong>Download JSON</strong> or <strong>Download CSV</strong> above.
            </Typography.Paragraph>
            <label htmlFor={inputId} className="account-delete__label">
              Type <strong>{CONFIRMATION_WORD}</strong> to confirm
            </label>
            <Input
              id={inputId}
              value={typed}
              onChange={(e) => setTyped(e.target.value)}
              autoComplete="off"
              placeholder={CONFIRMATION_WORD}
              onPressEnter={() => isConfirmation(typed) && !remove.isPending && remove.mutate()}
            />
          </>
        )}
      </Modal>
    </Card>
  );
}
