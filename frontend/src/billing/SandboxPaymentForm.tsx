import { ExperimentOutlined } from '@ant-design/icons';
import { Alert, Button, Form, Input } from 'antd';
import { useState } from 'react';
import { useConfirmSandboxPayment } from './api';
import { SANDBOX_DECLINED_CARD, SANDBOX_TEST_CARD, formatCardNumber, formatCvc, formatExpiry } from './logic';

/**
 * The sandbox provider's payment form (no Stripe configured): a clearly labelled test mode. The provider
 * (the server) validates the card, as Stripe's form would; its message is shown in the 'Payment Failed' toast.
 */
export function SandboxPaymentForm({ clientSecret, onPaid }: { clientSecret: string; onPaid: () => void }) {
  const [cardNumber, setCardNumber] = useState('');
  const [expiry, setExpiry] = useState('');
  const [cvc, setCvc] = useState('');
  const confirm = useConfirmSandboxPayment(clientSecret);

  const submit = () => {
    if (confirm.isPending) return;
    confirm.mutate({ cardNumber, expiry, cvc }, { onSuccess: onPaid });
  };

  return (
    <Form layout="vertical" onFinish={submit} className="sandbox-form" requiredMark={false}>
      <Alert
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
      <Form.Item label="Card number" htmlFor="sandbox-card-number">
        <Input
          id="sandbox-card-number"
          inputMode="numeric"
          autoComplete="cc-number"
          placeholder="1234 1234 1234 1234"
          value={cardNumber}
          onChange={(e) => setCardNumber(formatCardNumber(e.target.value))}
          size="large"
        />
      </Form.Item>
      <div className="sandbox-form__row">
        <Form.Item label="Expiry date" htmlFor="sandbox-card-expiry">
          <Input
            id="sandbox-card-expiry"
            inputMode="numeric"
            autoComplete="cc-exp"
            placeholder="MM / YY"
            value={expiry}
            onChange={(e) => setExpiry(formatExpiry(e.target.value))}
            size="large"
          />
        </Form.Item>
        <Form.Item label="CVC" htmlFor="sandbox-card-cvc">
          <Input
            id="sandbox-card-cvc"
            inputMode="numeric"
            autoComplete="cc-csc"
            placeholder="CVC"
            value={cvc}
            onChange={(e) => setCvc(formatCvc(e.target.value))}
            size="large"
          />
        </Form.Item>
      </div>
      <Button type="primary" htmlType="submit" size="large" block loading={confirm.isPending} disabled={confirm.isPending}>
        {confirm.isPending ? 'Processing...' : 'Subscribe to Joy Premium'}
      </Button>
    </Form>
  );
}
