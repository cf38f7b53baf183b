import { Type } from 'class-transformer';
import { Allow, IsDefined, IsObject, IsString, Matches, MaxLength, ValidateNested } from 'class-validator';
import { ENDPOINT_MAX } from './push-endpoint';

/** The browser's keys of a subscription (base64url): p256dh a P-256 public key (65 bytes), auth 16 bytes. */
export class PushKeysDto {
  @Matches(/^[A-Za-z0-9_-]{87}$/, { message: 'keys.p256dh must be the subscription\'s P-256 public key (base64url, 65 bytes)' })
  p256dh!: string;

  @Matches(/^[A-Za-z0-9_-]{22}$/, { message: 'keys.auth must be the subscription\'s authentication secret (base64url, 16 bytes)' })
  auth!: string;
}

/** POST /api/push/subscriptions: PushSubscription.toJSON() (its expirationTime, when sent, is ignored). */
export class SubscribePushDto {
  // The first failing rule is the answer, and class-validator lists the lowest decorator first (IsDefined always first).
  @MaxLength(ENDPOINT_MAX, { message: `endpoint must be at most ${ENDPOINT_MAX} characters` })
  @IsString({ message: 'endpoint must be an https URL of a push service' })
  @IsDefined({ message: 'endpoint is required' })
  endpoint!: string;

  @IsDefined({ message: 'keys must hold p256dh and auth' })
  @IsObject({ message: 'keys must hold p256dh and auth' })
  @ValidateNested({ message: 'keys must hold p256dh and auth' })
  @Type(() => PushKeysDto)
  keys!: PushKeysDto;

  @Allow()
  expirationTime?: number | null;
}

/** DELETE /api/push/subscriptions: the endpoint of the device to stop reminding. */
export class UnsubscribePushDto {
  // The first failing rule is the answer, and class-validator lists the lowest decorator first (IsDefined always first).
  @MaxLength(ENDPOINT_MAX, { message: `endpoint must be at most ${ENDPOINT_MAX} characters` })
  @IsString({ message: 'endpoint must be an https URL of a push service' })
  @IsDefined({ message: 'endpoint is required' })
  endpoint!: string;
}
