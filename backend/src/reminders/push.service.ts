import { DomainError } from '@joy/domain';
import { Inject, Injectable } from '@nestjs/common';
import { LOOKUP_HASH } from '../app.tokens';
import { decideAndAppend } from '../event-store/decider';
import { EVENT_STORE, type EventStore } from '../event-store/event-store.port';
import { userStreamCodec } from '../identity/accounts';
import { KEY_STORE, type KeyStore } from '../identity/key-store';
import type { LookupHash } from '../identity/lookup-hash';
import { type PushSubscriptionsDoc, pushSubscriptionsProjector } from '../projections/push-subscriptions.projector';
import { READ_YOUR_WRITES, type ReadYourWrites } from '../projections/read-your-writes';
import { READ_MODELS, type ReadModelStore } from '../read-models/read-model-store.port';
import { endpointProblem } from './push-endpoint';
import { type PushCommand, type PushEvent, pushStream, pushSubscriptionsDecider } from './push-subscriptions.decider';

/** Nest tokens of the reminders feature (provided by the composition root). */
export const PUSH_POLICY = 'PushPolicy';
export const VAPID_PUBLIC_KEY = 'VapidPublicKey';
export interface PushPolicy {
  allowInsecureEndpoints: boolean;
}

/** Appends a push command to the person's push stream, with their key (endpoints and keys are encrypted). */
export async function decidePush(store: EventStore, keys: KeyStore, command: PushCommand) {
  const codec = userStreamCodec<PushEvent>(await keys.keyFor(command.userId));
  return decideAndAppend(store, pushStream(command.userId), pushSubscriptionsDecider, command, { actorUserId: command.type === 'Subscribe' ? command.userId : 'system' }, codec);
}

/** POST/DELETE /api/push/subscriptions: the devices of the signed-in person that receive reminders. */
@Injectable()
export class PushSubscriptionsService {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(READ_MODELS) private readonly readModels: ReadModelStore,
    @Inject(READ_YOUR_WRITES) private readonly readYourWrites: ReadYourWrites,
    @Inject(KEY_STORE) private readonly keys: KeyStore,
    @Inject(LOOKUP_HASH) private readonly lookup: LookupHash,
    @Inject(PUSH_POLICY) private readonly policy: PushPolicy,
  ) {}

  private idOf(endpoint: string): string {
    return this.lookup('push-endpoint', endpoint);
  }

  /**
   * Subscribes this browser for the person. The endpoint must be a public https push service (its host resolved);
   * a browser someone else had subscribed (a shared computer) stops reminding them.
   */
  async subscribe(userId: string, input: { endpoint: string; p256dh: string; auth: string }): Promise<{ id: string }> {
    const problem = await endpointProblem(input.endpoint, this.policy.allowInsecureEndpoints);
    if (problem) throw new DomainError('push.endpoint_refused', problem, [{ field: 'endpoint', message: problem }]);
    const subscriptionId = this.idOf(input.endpoint);
    const at = new Date();
    const holders = await this.readModels.find<PushSubscriptionsDoc>(pushSubscriptionsProjector.collection, { subscriptionIds: subscriptionId });
    let last = 0;
    for (const other of holders.filter((h) => h.userId !== userId)) {
      const moved = await decidePush(this.store, this.keys, { type: 'Unsubscribe', userId: other.userId, subscriptionId, reason: 'moved', at });
      last = Math.max(last, moved.append?.position ?? 0);
    }
    const { append } = await decidePush(this.store, this.keys, { type: 'Subscribe', userId, subscriptionId, ...input, at });
    last = Math.max(last, append?.position ?? 0);
    if (last > 0) await this.readYourWrites.waitFor(last, { eventTypes: ['PushSubscribed', 'PushUnsubscribed'] });
    return { id: subscriptionId };
  }

  /** Stops reminding the person on this browser: 404 when it is not one of their subscribed devices. */
  async unsubscribe(userId: string, endpoint: string): Promise<void> {
    const { append } = await decidePush(this.store, this.keys, { type: 'Unsubscribe', userId, subscriptionId: this.idOf(endpoint), reason: 'unsubscribed', at: new Date() });
    if (append) await this.readYourWrites.waitFor(append.position, { eventTypes: ['PushUnsubscribed'] });
  }
}
