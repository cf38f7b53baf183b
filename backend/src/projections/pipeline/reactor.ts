import type { EventStore, RecordedEvent } from '../../event-store/event-store.port';
import type { ReadModelStore } from '../../read-models/read-model-store.port';

/** What a reactor may use besides the event it reacts to. */
export interface ReactorContext {
  store: EventStore;
  readModels: ReadModelStore;
}

/**
 * A reactor: a side effect on events (care fulfilment, notifications), not a read model. It is routed by the
 * relay exactly like a projection: its own queue `reactor.<name>` (one at a time, in global order, retried
 * in place, stopped rather than skipped after `maxAttempts`), its own checkpoint `reactor.<name>` (moved after
 * each event and on watermarks), its own lease (the queue's exclusive consumer: one worker replica reacts at a
 * time). Delivery is at least once, so `react` must be idempotent: the same event twice, or again after a crash
 * half-way through, must have the effect once (deterministic event ids, idempotency keys at the outside world).
 * Reactors are not rebuilt and not awaited by `waitFor` (nothing reads them).
 */
export interface Reactor {
  name: string;
  eventTypes: readonly string[];
  react(event: RecordedEvent, ctx: ReactorContext): Promise<void>;
  /**
   * Whether an error of `react` is the outside world being down for a while (a partner not answering): the event is
   * then tried again for as long as that lasts, without spending attempts, instead of stopping the reactor.
   */
  isTransient?(err: unknown): boolean;
}
