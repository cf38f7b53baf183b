import { CARE_KIND_LABELS, CARE_KINDS, CARE_MESSAGE_MAX, type CareKind } from '@joy/domain';
import { Button, Input, Modal, Radio } from 'antd';
import { useId, useRef, useState, type FormEvent } from 'react';
import { characterLimit } from '../lib/textCount';
import { toast } from '../lib/toast';
import { CareIcon } from './CareIcon';
import { CARE_KIND_HINTS, careMessage, careSentToast } from './logic';
import { useSendCare } from './queries';
import { useOneAtATime, useRequestKey } from '../lib/requestKey';
import { BusyLabel } from '../components/BusyLabel';

/**
 * Send care (Joy Premium): the four kinds as a radio group and an optional message (at most 500 characters,
 * with a counter). Success: "Care sent!" and the dialog closes; failure: the "Error" toast, the dialog stays.
 */
export function SendCareDialog({
  open,
  groupId,
  recipientId,
  recipientName,
  onClose,
  afterClose,
}: {
  open: boolean;
  groupId: string;
  recipientId: string;
  recipientName: string;
  onClose: () => void;
  /** Once it has closed (and antd has given the focus back to its opener, if that is still there). */
  afterClose?: () => void;
}) {
  const id = useId();
  const [kind, setKind] = useState<CareKind>('flowers');
  const [message, setMessage] = useState('');
  const formRef = useRef<HTMLFormElement>(null);
  const send = useSendCare();
  const requestKey = useRequestKey();
  const oneAtATime = useOneAtATime();

  const close = () => {
    send.reset();
    onClose();
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const body = { groupId, recipientId, kind, message: careMessage(message) };
    oneAtATime((settled) =>
      send.mutate(
        { body, idempotencyKey: requestKey.keyFor(body) },
        {
          onSuccess: () => {
            requestKey.done();
            toast(careSentToast(recipientName, kind));
            setKind('flowers');
            setMessage('');
            send.reset();
            onClose();
          },
          onSettled: settled,
        },
      ),
    );
  };

  return (
    <Modal
      open={open}
      title={`Send care to ${recipientName}`}
      onCancel={close}
      afterOpenChange={(isOpen) => {
        if (isOpen) formRef.current?.querySelector<HTMLInputElement>('input[type=radio]:checked')?.focus();
      }}
      afterClose={afterClose}
      footer={null}
      className="care-dialog"
      width={520}
    >
      <form ref={formRef} id={`${id}-care`} noValidate onSubmit={submit} className="care-dialog__form">
        <p className="care-dialog__intro">
          Let {recipientName} know you are thinking of them. Joy places the order for you; it is included in your Joy Premium, at no extra cost.
        </p>
        <fieldset className="care-dialog__kinds">
          <legend className="care-dialog__legend">What would you like to send?</legend>
          <Radio.Group value={kind} onChange={(e) => setKind(e.target.value as CareKind)} name={`${id}-kind`} className="care-kinds">
            {CARE_KINDS.map((k) => (
              <Radio key={k} value={k} className="care-kind" aria-describedby={`${id}-${k}-hint`}>
                <span className="care-kind__label">
                  <span className="care-kind__icon">
                    <CareIcon kind={k} />
                  </span>
                  <span>
                    <span className="care-kind__name">{CARE_KIND_LABELS[k]}</span>
                    <span className="care-kind__hint" id={`${id}-${k}-hint`}>
                      {CARE_KIND_HINTS[k]}
                    </span>
                  </span>
                </span>
              </Radio>
            ))}
          </Radio.Group>
        </fieldset>
        <label htmlFor={`${id}-message`} className="care-dialog__label">
          Message (optional)
        </label>
        <Input.TextArea
          id={`${id}-message`}
          dir="auto"
          value={message}
          onChange={(e) => setMessage(e.target.value)}
          placeholder={`A few words for ${recipientName}`}
          rows={4}
          count={characterLimit(CARE_MESSAGE_MAX)}
        />
        <div className="care-dialog__actions">
          <Button onClick={close}>Cancel</Button>
          <Button type="primary" htmlType="submit" disabled={send.isPending} aria-busy={send.isPending}>
            <BusyLabel busy={send.isPending} label="Send Care" busyLabel="Sending..." />
          </Button>
        </div>
      </form>
    </Modal>
  );
}
