import { BarChartOutlined, CheckCircleFilled, CrownFilled, GiftOutlined, TeamOutlined } from '@ant-design/icons';
import { Alert, Button, Card, Result, Typography } from 'antd';
import { useEffect, useRef, useState } from 'react';
import '../billing/billing.css';
import { useBillingConfig, useCreateSubscription, usePlan, useResumeSubscription } from '../billing/api';
import { PREMIUM_PRICE_LABEL } from '@joy/domain';
import { planSummary, subscribeOutcome } from '../billing/logic';
import { SandboxPaymentForm } from '../billing/SandboxPaymentForm';
import { StripePaymentForm } from '../billing/StripePaymentForm';
import { LinkButton } from '../components/LinkButton';
import { PageLoading } from '../components/PageLoading';
import { TOASTS, toast } from '../lib/toast';

const FEATURES = [
  {
    icon: <GiftOutlined aria-hidden="true" />,
    name: 'Care Actions',
    text: 'Send flowers, gift cards and handwritten notes to tribe members who need support.',
  },
  {
    icon: <TeamOutlined aria-hidden="true" />,
    name: 'Unlimited Groups',
    text: 'Create and join unlimited happiness tribes with friends and family.',
  },
  {
    icon: <BarChartOutlined aria-hidden="true" />,
    name: 'Advanced Analytics',
    text: 'Deeper insights, your full history, trends by factor and the patterns of your weeks.',
  },
];

function Features() {
  return (
    <Card title={<h2 className="card-title">Premium Features</h2>}>
      <ul className="premium-features">
        {FEATURES.map((f) => (
          <li key={f.name} className="premium-feature">
            <span className="premium-feature__icon">{f.icon}</span>
            <span>
              <span className="premium-feature__name">{f.name}</span>
              <span className="premium-feature__text">{f.text}</span>
            </span>
          </li>
        ))}
      </ul>
      <div className="premium-price" aria-label={`${PREMIUM_PRICE_LABEL.amount} ${PREMIUM_PRICE_LABEL.period}, cancel anytime`}>
        <span className="premium-price__amount">{PREMIUM_PRICE_LABEL.amount}</span>
        <span className="premium-price__period">{PREMIUM_PRICE_LABEL.period}</span>
        <span className="premium-price__note">Cancel anytime</span>
      </div>
    </Card>
  );
}

function Paid() {
  const title = useRef<HTMLElement>(null);
  // It replaces the payment form, and with it the focused button: the focus goes to the news instead of the page.
  useEffect(() => title.current?.focus(), []);
  return (
    <div className="premium-done" role="status">
      <CheckCircleFilled style={{ fontSize: 40, color: '#15803d' }} aria-hidden="true" />
      <Typography.Text strong ref={title} tabIndex={-1}>
        Joy Premium is active.
      </Typography.Text>
      <Typography.Text type="secondary">Manage your plan, renewal date and cancellation on your account page.</Typography.Text>
      <div className="premium-done__actions">
        <LinkButton to="/account" type="primary">
          Go to Your Account
        </LinkButton>
        <LinkButton to="/">Back to Home</LinkButton>
      </div>
    </div>
  );
}

/** The page's title with the crown, and a tagline when there is one. */
function PremiumHero({ tagline }: { tagline?: string }) {
  return (
    <header className="premium__hero">
      <span className="premium__badge" aria-hidden="true">
        <CrownFilled />
      </span>
      <Typography.Title level={1} className="premium__title">
        Joy Premium
      </Typography.Title>
      {tagline && <Typography.Paragraph className="premium__tagline">{tagline}</Typography.Paragraph>}
    </header>
  );
}

/** A plan that opens no checkout here (given, or paused), with the way to the Account page. */
function PlanNotice({ status, title, text }: { status: 'success' | 'warning'; title: string; text: string }) {
  return (
    <div className="premium">
      <PremiumHero />
      <Card>
        <Result
          status={status}
          title={title}
          subTitle={text}
          extra={
            <LinkButton to="/account" type="primary">
              Go to Your Account
            </LinkButton>
          }
        />
      </Card>
    </div>
  );
}

/** A premium (or cancelled, not yet ended) user opened /subscribe: their plan as it is, with Resume where it applies. */
function PlanState() {
  const plan = usePlan();
  const resume = useResumeSubscription();
  const status = plan.data?.status;
  const granted = plan.data?.granted === true;
  useEffect(() => {
    // 'Already Subscribed' (SPEC) for a plan that is; a paused one is told what to do instead, below, and a grant is no subscription.
    if (status && status !== 'lapsed' && !granted) toast(TOASTS.alreadySubscribed);
  }, [status, granted]);
  if (plan.isLoading || !plan.data) return <PageLoading />;
  const summary = planSummary(plan.data);
  if (summary.granted) {
    // No checkout opened during the grant: it runs for longer than a first payment can wait (two years).
    return <PlanNotice status="success" title="Joy Premium is given to you" text={`${summary.detail} Subscribing to keep it after that opens two years before it ends.`} />;
  }
  if (summary.needsPayment) return <PlanNotice status="warning" title="Joy Premium is paused" text={summary.detail} />;
  return (
    <div className="premium">
      <PremiumHero />
      <Card>
        <Result
          status={summary.canResume ? 'info' : 'success'}
          title={summary.canResume ? 'Your Joy Premium is canceled' : 'You have Joy Premium'}
          subTitle={[summary.dateLine, summary.detail].filter(Boolean).join('. ')}
          extra={[
            summary.canResume && (
              <Button key="resume" type="primary" onClick={() => resume.mutate()} loading={resume.isPending}>
                Resume Joy Premium
              </Button>
            ),
            <LinkButton key="account" to="/account" type={summary.canResume ? 'default' : 'primary'}>
              Go to Your Account
            </LinkButton>,
          ]}
        />
      </Card>
    </div>
  );
}

/** No Stripe keys and no sandbox on this install: nothing to pay with, said plainly (the operator can grant Premium). */
function PaymentsNotSetUp() {
  return (
    <div className="premium">
      <PremiumHero />
      <Card>
        <Result
          status="info"
          title="Payments are not set up on this install"
          subTitle="Joy Premium cannot be bought here yet. Ask the person who runs this Joy: they can set up payments, or give you Joy Premium."
          extra={<LinkButton to="/">Back to Home</LinkButton>}
        />
      </Card>
    </div>
  );
}

/**
 * SPEC §2/§4: a spinner until a payment client secret arrives (POST /api/create-subscription on opening);
 * no secret: 'Already Subscribed' and the plan as it is (issue 18: no endless spinner), with Resume for a
 * canceled plan; then the features, the price and the payment form
 * of the configured provider (Stripe's Payment Element, or the sandbox's test-mode form).
 */
export default function SubscribePage() {
  const create = useCreateSubscription();
  const config = useBillingConfig();
  const plan = usePlan();
  const summary = planSummary(plan.data);
  const [clientSecret, setClientSecret] = useState<string | null>(null);
  const [paid, setPaid] = useState(false);
  const [alreadyPremium, setAlreadyPremium] = useState(false);
  const started = useRef(false);

  useEffect(() => {
    document.title = 'Joy Premium · Joy';
  }, []);

  const paymentsSetUp = config.data ? config.data.provider !== 'none' : null;

  useEffect(() => {
    // Once the configuration says payments are set up; once, also under StrictMode's double effects.
    if (paymentsSetUp !== true || started.current) return;
    started.current = true;
    create.mutate(undefined, {
      onSuccess: (response) => {
        const outcome = subscribeOutcome(response);
        if (outcome.kind === 'pay') setClientSecret(outcome.clientSecret);
        else setAlreadyPremium(true);
      },
    });
  }, [create, paymentsSetUp]);

  if (paymentsSetUp === false) return <PaymentsNotSetUp />;
  if (alreadyPremium) return <PlanState />;
  if (!clientSecret || !config.data || config.data.provider === 'none') return <PageLoading />;

  return (
    <div className="premium">
      <PremiumHero tagline="Unlock the full power of happiness tracking and care actions" />
      <div className="premium__grid">
        <Features />
        <Card title={<h2 className="card-title">Start Your Premium Journey</h2>}>
          {paid ? (
            <Paid />
          ) : (
            <>
              {summary.granted && (
                // Paying during the operator's grant: say when the money is taken, so nobody thinks the given days are paid for.
                // A note, there from the start: not an alert announced at every load.
                <Alert role="note" className="premium-pay__grant" type="info" showIcon title={summary.detail} description={summary.upgradeNote} />
              )}
              <Typography.Paragraph className="premium-pay__hint">Enter your payment details below to unlock premium features</Typography.Paragraph>
              {config.data.provider === 'stripe' ? (
                <StripePaymentForm publishableKey={config.data.publishableKey} clientSecret={clientSecret} onPaid={() => setPaid(true)} />
              ) : (
                <SandboxPaymentForm clientSecret={clientSecret} onPaid={() => setPaid(true)} />
              )}
            </>
          )}
        </Card>
      </div>
    </div>
  );
}
