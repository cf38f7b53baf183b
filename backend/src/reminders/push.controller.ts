import { Body, Controller, Delete, Get, HttpCode, Inject, Post, UseGuards } from '@nestjs/common';
import type { PushPublicKeyView } from '@joy/domain';
import { CurrentUser, SignedInGuard } from '../identity/signed-in.guard';
import type { SessionUser } from '../identity/signed-in.guard';
import { SubscribePushDto, UnsubscribePushDto } from './push.dto';
import { PushSubscriptionsService, VAPID_PUBLIC_KEY } from './push.service';

/** Web Push for reminders: the install's public key, and the person's subscribed devices. */
@Controller('push')
export class PushController {
  constructor(
    private readonly subscriptions: PushSubscriptionsService,
    @Inject(VAPID_PUBLIC_KEY) private readonly publicKey: string,
  ) {}

  /** The VAPID public key (applicationServerKey of PushManager.subscribe): public by nature. */
  @Get('public-key')
  key(): PushPublicKeyView {
    return { publicKey: this.publicKey };
  }

  @Post('subscriptions')
  @UseGuards(SignedInGuard)
  subscribe(@CurrentUser() user: SessionUser, @Body() body: SubscribePushDto): Promise<{ id: string }> {
    return this.subscriptions.subscribe(user.id, { endpoint: body.endpoint, p256dh: body.keys.p256dh, auth: body.keys.auth });
  }

  @Delete('subscriptions')
  @UseGuards(SignedInGuard)
  @HttpCode(204)
  async unsubscribe(@CurrentUser() user: SessionUser, @Body() body: UnsubscribePushDto): Promise<void> {
    await this.subscriptions.unsubscribe(user.id, body.endpoint);
  }
}
