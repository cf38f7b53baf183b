import { CreditCardOutlined, CrownOutlined, ExclamationCircleOutlined } from '@ant-design/icons';
import { Alert, App, Button, Card, Tag, Typography } from 'antd';
import { useRef } from 'react';
import '../account/account.css';
import { DataExportCard } from '../account/DataExportCard';
import { DeleteAccountCard } from '../account/DeleteAccountCard';
import { ImportRatingsCard } from '../account/ImportRatingsCard';
import { PasskeysCard } from '../account/PasskeysCard';
import '../billing/billing.css';
import { useBillingConfig, useCancelSubscription, useOpenCustomerPortal, usePlan, useResumeSubscription } from '../billing/api';
import { cancellationExplanation, planSummary } from '../billing/logic';
import { LinkButton } from '../components/LinkButton';
import { dropped } from '../lib/focus';
import { PageHeader } from '../components/PageHeader';
import { PageLoading } from '../components/PageLoading';
import { CareSettingCard } from '../settings/CareSettingCard';
import { theme } from '../theme';

/**
 * "Active" (or "Given", the operator's grant), "Canceled" or "Paused" beside the plan: antd's green, orange and red
 * tags, with the theme's success, warning and error colours as text (antd's own green and orange, #389e0d and #d46b08,
 * have only 3.4:1 on those backgrounds; these have 4.9:1 and 4.7:1).
 */
const PLAN_TAGS = {
  active: { color: 'green', text: 'Active', ink: theme.token!.colorSuccess! },
  given: { color: 'green', text: 'Given', ink: theme.token!.colorSuccess! },
  canceled: { color: 'orange', text: 'Canceled', ink: theme.token!.colorWarning! },
  paused: { color: 'red', text: 'Paused', ink: theme.token!.colorError! },
} as const;

function PlanTag({ kind }: { kind: keyof typeof PLAN_TAGS }) {
  const tag = PLAN_TAGS[kind];
  return (
    <Tag color={tag.color} style={{ color: tag.ink }}>
      {tag.text}
    </Tag>
  );
}

function PlanCard() {
  const plan = usePlan();
  const cancel = useCancelSubscription();
  const resume = useResumeSubscription();
  const portal = useOpenCustomerPortal();
  const billing = useBillingConfig();
  const { modal } = App.useApp();
  // Cancel and Resume take each other's place: the focus goes to the one that appears, not to the page.
  const focusNext = useRef<'cancel' | 'resume' | null>(null);
  const cancelButton = useRef<HTMLButtonElement>(null);
  const resumeButton = useRef<HTMLButtonElement>(null);
  const focusSwapped = () => {
    const next = focusNext.current === 'resume' ? resumeButton.current : focusNext.current === 'cancel' ? cancelButton.current : null;
    // Once it is there and the focus fell to the page (its button gone, or the dialog closed); never taken from elsewhere.
    if (!next || !dropped()) return;
    focusNext.current = null;
    next.focus();
  };
  /** Tries for 2 s: the new button appears when the plan is fetched again, before or after a dialog gives the focus back. */
  const focusSwappedSoon = () => {
    const until = Date.now() + 2000;
    const tick = () => {
      focusSwapped();
      if (focusNext.current && Date.now() < until) setTimeout(tick, 50);
    };
    tick();
  };

  if (plan.isLoading) return <PageLoading />;
  if (plan.isError) {
    return (
      <Card title={<h2 className="card-title">Your Plan</h2>}>
        <Typography.Text type="danger">Your plan could not be loaded. Please reload the page.</Typography.Text>
      </Card>
    );
  }
  const summary = planSummary(plan.data);
  const premium = summary.name === 'Joy Premium';
  // Stripe keeps the payment method and the invoices of anyone who has subscribed through it (a grant pays nothing).
  const canManagePayments = billing.data?.provider === 'stripe' && plan.data !== undefined && plan.data.status !== 'free' && !summary.granted;
  // Keeping a grant going means paying: only where payments are set up (elsewhere /subscribe would only say they are not).
  const paymentsSetUp = billing.data !== undefined && billing.data.provider !== 'none';
  const canUpgrade = summary.canUpgrade && (!summary.granted || paymentsSetUp);

  const confirmCancel = () =>
    modal.confirm({
      title: 'Cancel Joy Premium?',
      width: 480,
      icon: <ExclamationCircleOutlined aria-hidden="true" />,
      content: cancellationExplanation(plan.data),
      okText: 'Cancel Subscription',
      okButtonProps: { danger: true },
      cancelText: 'Keep Joy Premium',
      // The safe answer first, as every confirmation of Joy: Enter twice must not cancel.
      focusable: { autoFocusButton: 'cancel' },
      onOk: () => {
        focusNext.current = 'resume';
        return cancel.mutateAsync().catch(() => (focusNext.current = null));
      },
      afterClose: focusSwappedSoon,
    });

  return (
    <Card title={<h2 className="card-title">Your Plan</h2>} aria-labelledby="plan-name">
      <div className="account-plan__head">
        <span id="plan-name" className="account-plan__name" data-testid="plan-name">
          {summary.name}
        </span>
        {premium && (
          <PlanTag kind={summary.needsPayment ? 'paused' : summary.granted ? 'given' : plan.data?.status === 'canceling' ? 'canceled' : 'active'} />
        )}
      </div>
      {summary.dateLine && (
        <div className="account-plan__date" data-testid="plan-date">
          {summary.dateLine}
        </div>
      )}
      {summary.needsPayment ? (
        // What happened and what to do, where it cannot be missed; the way on is the billing portal below.
        <Alert className="account-plan__alert" type="warning" showIcon title="Joy Premium is paused" description={summary.detail} />
      ) : (
        <Typography.Paragraph className="account-plan__detail">{summary.detail}</Typography.Paragraph>
      )}
      {canUpgrade && summary.upgradeNote && <Typography.Paragraph className="account-plan__detail">{summary.upgradeNote}</Typography.Paragraph>}
      <div className="account-plan__actions">
        {canUpgrade && (
          <LinkButton to="/subscribe" type="primary" icon={<CrownOutlined aria-hidden="true" />}>
            {summary.upgradeLabel}
          </LinkButton>
        )}
        {summary.canCancel && (
          <Button ref={cancelButton} danger onClick={confirmCancel} loading={cancel.isPending}>
            Cancel Subscription
          </Button>
        )}
        {summary.canResume && (
          <Button
            ref={resumeButton}
            type="primary"
            icon={<CrownOutlined aria-hidden="true" />}
            onClick={() => {
              focusNext.current = 'cancel';
              resume.mutate(undefined, { onSuccess: focusSwappedSoon, onError: () => (focusNext.current = null) });
            }}
            loading={resume.isPending}
          >
            Resume Joy Premium
          </Button>
        )}
        {canManagePayments && (
          <Button
            type={summary.needsPayment ? 'primary' : 'default'}
            icon={<CreditCardOutlined aria-hidden="true" />}
            onClick={() => portal.mutate()}
            loading={portal.isPending}
          >
            {summary.needsPayment ? 'Update your card in the billing portal' : 'Manage payment method and invoices'}
          </Button>
        )}
      </div>
    </Card>
  );
}

/**
 * /account (PRODUCT.md): the plan, its renewal or end date, Cancel (at the period end) or Upgrade; whether care
 * actions are accepted (a setting, here until a Settings page exists); the data export
 * (JSON, CSV), the import of ratings from an export, and the account deletion ("Data and account").
 */
export default function AccountPage() {
  return (
    <div className="account">
      <PageHeader title="Your Account" subtitle="Your Joy Premium plan, your data and your account." />
      <div className="stack">
        <PlanCard />
        <CareSettingCard />
        <PasskeysCard />
        <DataExportCard />
        <ImportRatingsCard />
        <DeleteAccountCard />
      </div>
    </div>
  );
}
