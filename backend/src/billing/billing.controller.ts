import { Body, type CanActivate, Controller, Get, Headers, HttpCode, Inject, Injectable, Logger, Post, Req, UseGuards } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import type { Request } from 'express';
import { CurrentUser, type SessionUser, SignedInGuard } from '../identity/signed-in.guard';
import { type BillingClientConfig, type CreateSubscriptionResponse, DomainError, type SubscriptionStatusView } from '@joy/domain';
import { ConfirmSandboxPaymentDto } from './billing.dto';
import { NoBodyDto } from '../http/no-body.dto';
import {
  CancelSubscriptionCommand,
  OpenCustomerPortalCommand,
  ResumeSubscriptionCommand,
  ConfirmSandboxPaymentCommand,
  CreateSubscriptionCommand,
  GetSubscriptionStatusQuery,
  SyncProviderSubscriptionCommand,
} from './billing.handlers';
import { BILLING_PROVIDER, type BillingProvider } from './billing.provider';

/**
 * Without the sandbox (Stripe, or no payments) its confirmation does not exist: 404 before the body is even checked,
 * so an install never tells a stranger what a test card would need.
 */
@Injectable()
class SandboxOnlyGuard implements CanActivate {
  constructor(@Inject(BILLING_PROVIDER) private readonly provider: BillingProvider) {}

  canActivate(): boolean {
    if (!this.provider.testCards) throw new DomainError('request.not_found', 'Not found');
    return true;
  }
}

/** Joy Premium for the signed-in user. */
@Controller()
@UseGuards(SignedInGuard)
export class BillingController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
    @Inject(BILLING_PROVIDER) private readonly provider: BillingProvider,
  ) {}

  /** `{ isPremium, status, currentPeriodEnd, cancelAtPeriodEnd }`; everyone is on the free plan until they pay. */
  @Get('subscription-status')
  status(@CurrentUser() user: SessionUser): Promise<SubscriptionStatusView> {
    return this.queries.execute(new GetSubscriptionStatusQuery(user.id));
  }

  /**
   * `{ clientSecret }` of a checkout to pay (during the operator's grant too: it is paid from the grant's end), or `{}`
   * when the user already has Joy Premium. No body.
   */
  @Post('create-subscription')
  @HttpCode(200)
  create(@CurrentUser() user: SessionUser, @Body() _body: NoBodyDto): Promise<CreateSubscriptionResponse> {
    return this.commands.execute(new CreateSubscriptionCommand(user.id));
  }

  /** Takes back a cancellation before the paid period ends (the plan renews again); 409 when there is none. */
  @Post('subscription/resume')
  @HttpCode(200)
  resume(@CurrentUser() user: SessionUser, @Body() _body: NoBodyDto): Promise<SubscriptionStatusView> {
    return this.commands.execute(new ResumeSubscriptionCommand(user.id));
  }

  /** Ends Joy Premium at the end of the paid period (premium until then); 409 when there is nothing to cancel. */
  @Post('subscription/cancel')
  @HttpCode(200)
  cancel(@CurrentUser() user: SessionUser, @Body() _body: NoBodyDto): Promise<SubscriptionStatusView> {
    return this.commands.execute(new CancelSubscriptionCommand(user.id));
  }

  /** `{ url }` of the Stripe Customer Portal (payment method and invoices); 409 without Stripe or a customer. */
  @Post('billing/portal')
  @HttpCode(200)
  portal(@CurrentUser() user: SessionUser, @Body() _body: NoBodyDto): Promise<{ url: string }> {
    return this.commands.execute(new OpenCustomerPortalCommand(user.id));
  }

  /** Which payment form the browser shows: `{ provider: 'stripe', publishableKey }` or `{ provider: 'sandbox' }`. */
  @Get('billing/config')
  config(): BillingClientConfig {
    return this.provider.clientConfig();
  }

  /** The sandbox's payment form: pays the open checkout with a test card (404 when Stripe is configured). */
  @Post('billing/sandbox/confirm')
  @UseGuards(SandboxOnlyGuard)
  @HttpCode(200)
  confirm(@CurrentUser() user: SessionUser, @Body() body: ConfirmSandboxPaymentDto): Promise<SubscriptionStatusView> {
    return this.commands.execute(
      new ConfirmSandboxPaymentCommand(user.id, body.clientSecret, { number: body.cardNumber, expiry: body.expiry, cvc: body.cvc }),
    );
  }
}

/**
 * Stripe's webhook: the raw body (mounted in app.ts, exempt from the JSON/Origin check) is verified against
 * the `Stripe-Signature` header; a bad signature gets 400 and changes nothing. The event only says WHICH
 * subscription changed: its current state is retrieved from Stripe, so duplicates and out-of-order
 * deliveries append nothing new. A subscription that is not Joy's, or that Stripe itself does not know, is
 * acknowledged (200, logged): delivering it again would change nothing. A failure to reach Stripe (or Stripe's 5xx)
 * answers 500, and Stripe delivers again.
 */
@Controller('billing')
export class StripeWebhookController {
  private readonly logger = new Logger('StripeWebhook');

  constructor(
    private readonly commands: CommandBus,
    @Inject(BILLING_PROVIDER) private readonly provider: BillingProvider,
  ) {}

  @Post('webhook')
  @HttpCode(200)
  async receive(@Req() req: Request, @Headers('stripe-signature') signature: string | undefined): Promise<{ received: true }> {
    const webhooks = this.provider.webhooks;
    if (!webhooks) throw new DomainError('request.not_found', 'Not found');
    if (!Buffer.isBuffer(req.body) || !signature) throw new DomainError('billing.webhook_invalid', 'Missing Stripe signature or body');
    let event: { id: string; subscriptionId: string | null };
    try {
      event = webhooks.verify(req.body, signature);
    } catch (err) {
      this.logger.warn(`Webhook refused: ${(err as Error).message}`);
      throw new DomainError('billing.webhook_invalid', 'Invalid Stripe signature');
    }
    if (!event.subscriptionId) return { received: true };
    const current = await webhooks.current(event.subscriptionId);
    if (current) await this.commands.execute(new SyncProviderSubscriptionCommand(current, `stripe-${event.id}`));
    return { received: true };
  }
}
