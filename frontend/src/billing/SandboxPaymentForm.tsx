import { ExperimentOutlined } from '@ant-design/icons';
import { Alert, Button, Form, Input, type InputProps, type InputRef } from 'antd';
import { useRef, useState, type RefObject } from 'react';
import { namedFieldsOf, parseApiError } from '../lib/apiError';
import { focusWhenEnabled } from '../lib/focus';
import { useConfirmSandboxPayment } from './api';
import { SANDBOX_DECLINED_CARD, SANDBOX_TEST_CARD, formatCardNumber, formatCvc, formatExpiry, providerMessage } from './logic';
import { useOneAtATime } from '../lib/requestKey';

type CardField = 'number' | 'expiry' | 'cvc';

/** The field a refusal names (the server's `errors`: cardNumber, expiry or cvc); else the card number. */
function fieldOf(failure: unknown): CardField {
  const field = namedFieldsOf(failure)[0]?.field;
  return field === 'expiry' || field === 'cvc' ? field : 'number';
}

/** One card field, with the provider's refusal under it when it is the one at fault (invalid, and described by it). */
function CardInput({ id, label, error, inputRef, ...input }: InputProps & { id: string; label: string; error: string | null; inputRef: RefObject<InputRef | null> }) {
  const errorId = `${id}-error`;
  return (
    <Form.Item label={label} htmlFor={id} validateStatus={error ? 'error' : undefined} help={error ? <span id={errorId}>{error}</span> : undefined}>
      <Input {...input} id={id} ref={inputRef} inputMode="numeric" size="large" aria-invalid={error ? true : undefined} aria-describedby={error ? errorId : undefined} />
    </Form.Item>
  );
}

/**
 * The sandbox provider's payment form (no Stripe configured): a clearly labelled test mode. The provider
 * (the server) validates the card, as Stripe's form would; its message is shown in the 'Payment Failed' toast
 * (SPEC) and, as the toast goes after a few seconds, under the field at fault, which gets the focus.
 */
export function SandboxPaymentForm({ clientSecret, onPaid }: { clientSecret: string; onPaid: () => void }) {
  const [cardNumber, setCardNumber] = useState('');
  const [expiry, setExpiry] = useState('');
  const [cvc, setCvc] = useState('');
  const [error, setError] = useState<{ field: CardField; message: string } | null>(null);
  const inputs = { number: useRef<InputRef>(null), expiry: useRef<InputRef>(null), cvc: useRef<InputRef>(null) };
  const submitButton = useRef<HTMLButtonElement>(null);
  const confirm = useConfirmSandboxPayment(clientSecret);

  const oneAtATime = useOneAtATime();
  const submit = () => {
    if (confirm.isPending) return;
    setError(null);
    // The button is disabled while the payment runs, and the browser drops its focus: given back once enabled.
    const focused = document.activeElement;
    if (focused instanceof HTMLElement && submitButton.current?.form?.contains(focused)) focusWhenEnabled(focused);
    // One payment per press: two clicks in one frame came before the pending state (a review, 11-28).
    oneAtATime((settled) =>
      confirm.mutate(
        { cardNumber, expiry, cvc },
        {
          onSettled: settled,
          onSuccess: onPaid,
          onError: (failure) => {
            if (parseApiError(failure).code !== 'billing.card_refused') return;
            const message = providerMessage(failure);
            const field = fieldOf(failure);
            setError({ field, message });
            inputs[field].current?.focus();
          },
        },
      ),
    );
  };
  const errorOf = (field: CardField) => (error?.field === field ? error.message : null);
  // Editing the field at fault takes its error away (it may be right now).
  const edited = (field: CardField) => {
    if (error?.field === field) setError(null);
  };

  return (
    <Form layout="vertical" onFinish={submit} className="sandbox-form" requiredMark={false}>
      {/* Static help, there from the start: a note, not an alert announced at every page load. */}
      <Alert
        role="note"
        type="warning"
        showIcon
        icon={<ExperimentOutlined aria-hidden="true" />}
        className="sandbox-form__notice"
        title="Test mode — no money moves."
        description={
          <>
            Use {SANDBOX_TEST_CARD} with any future date and any CVC. {SANDBOX_DECLINED_CARD} shows a declined card.
          </>
        }
      />
      <CardInput
        id="sandbox-card-number"
        label="Card number"
        error={errorOf('number')}
        inputRef={inputs.number}
        autoComplete="cc-number"
        placeholder="1234 1234 1234 1234"
        value={cardNumber}
        onChange={(e) => {
          setCardNumber(formatCardNumber(e.target.value));
          edited('number');
        }}
      />
      <div className="sandbox-form__row">
        <CardInput
          id="sandbox-card-expiry"
          label="Expiry date"
          error={errorOf('expiry')}
          inputRef={inputs.expiry}
          autoComplete="cc-exp"
          placeholder="MM / YY"
          value={expiry}
          onChange={(e) => {
            setExpiry(formatExpiry(e.target.value));
            edited('expiry');
          }}
        />
        <CardInput
          id="sandbox-card-cvc"
          label="CVC"
          error={errorOf('cvc')}
          inputRef={inputs.cvc}
          autoComplete="cc-csc"
          placeholder="CVC"
          value={cvc}
          onChange={(e) => {
            setCvc(formatCvc(e.target.value));
            edited('cvc');
          }}
        />
      </div>
      <Button ref={submitButton} type="primary" htmlType="submit" size="large" block loading={confirm.isPending} disabled={confirm.isPending}>
        {confirm.isPending ? 'Processing...' : 'Subscribe to Joy Premium'}
      </Button>
    </Form>
  );
}
