import { Logger } from '@nestjs/common';
import { decideAndAppend } from '../event-store/decider';
import type { EventStore, RecordedEvent } from '../event-store/event-store.port';
import type { KeyStore } from '../identity/key-store';
import { decryptField } from '../identity/personal-data';
import { type PushSubscriptionsDoc, pushSubscriptionsProjector } from '../projections/push-subscriptions.projector';
import { type UserSettingsDoc, userSettingsProjector } from '../projections/user-settings.projector';
import type { ReadModelStore } from '../read-models/read-model-store.port';
import type { PushMessage, PushSender, PushTarget } from './push-sender';
import { decidePush } from './push.service';
import { reminderDecision, ReminderSent, remindersDecider, remindersStream } from './reminders.decider';

export const REMINDER_MESSAGE: Omit<PushMessage, 'tag'> = {
  title: 'How was your day?',
  body: 'Take a minute to rate today in Joy.',
  url: '/',
};

/** How often the scheduler looks whose reminder is due (well inside REMINDER_WINDOW_MINUTES). */
export const REMINDER_TICK_MS = 30_000;

export interface TickResult {
  /** People reminded this tick. */
  reminded: number;
  sent: number;
  gone: number;
  failed: number;
}

const upcast = (e: RecordedEvent) => ({ type: e.type, data: e.data }) as unknown as ReminderSent;

/**
 * Sends the daily reminders (runs where the pipeline runs: the worker, or the embedded process). Each tick finds
 * the people with a reminder time (user-settings), keeps those whose reminder is due now (`reminderDecision`:
 * their time in their zone has come, today is not rated, none sent today), records `ReminderSent` on their
 * reminders stream first (the expected version makes a second tick, a second worker or a restart a no-op for
 * that day), then pushes to each of their devices and forgets those the push service says are gone (404/410).
 * The clock is injectable, so tests drive days and zones without waiting.
 */
export class ReminderScheduler {
  private readonly logger = new Logger('Reminders');
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;

  constructor(
    private readonly store: EventStore,
    private readonly readModels: ReadModelStore,
    private readonly keys: KeyStore,
    private readonly sender: PushSender,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async tick(now: Date = this.clock()): Promise<TickResult> {
    const result: TickResult = { reminded: 0, sent: 0, gone: 0, failed: 0 };
    const people = await this.readModels.find<UserSettingsDoc>(userSettingsProjector.collection, { hasReminder: true });
    for (const person of people) {
      const decision = reminderDecision(person, now);
      if (!decision.send) continue;
      const devices = await this.devicesOf(person.userId);
      if (devices.length === 0) continue;
      const { append } = await decideAndAppend(
        this.store,
        remindersStream(person.userId),
        remindersDecider,
        { userId: person.userId, day: decision.day, at: now, devices: devices.length },
        { actorUserId: 'system', now },
        { upcast, eventIds: () => [`reminder-${person.userId}-${decision.day}`] },
      );
      if (!append) continue; // already reminded today (another tick or worker)
      result.reminded++;
      for (const device of devices) {
        const outcome = await this.sender.send(device.target, { ...REMINDER_MESSAGE, tag: `joy-reminder-${decision.day}` });
        result[outcome]++;
        if (outcome === 'gone') {
          await decidePush(this.store, this.keys, { type: 'Unsubscribe', userId: person.userId, subscriptionId: device.id, reason: 'gone', at: now });
        }
      }
    }
    if (result.reminded > 0) this.logger.log(`Reminded ${result.reminded} people: ${result.sent} pushes sent, ${result.gone} devices gone, ${result.failed} failed`);
    return result;
  }

  /** The person's subscribed devices, decrypted with their key (none once the account is deleted). */
  private async devicesOf(userId: string): Promise<{ id: string; target: PushTarget }[]> {
    const doc = await this.readModels.get<PushSubscriptionsDoc>(pushSubscriptionsProjector.collection, userId);
    if (!doc || doc.subscriptions.length === 0) return [];
    const key = await this.keys.existingKey(userId);
    if (!key) return [];
    return doc.subscriptions.flatMap((s) => {
      const [endpoint, p256dh, auth] = (['endpoint', 'p256dh', 'auth'] as const).map((f) => decryptField(key, userId, f, s[f]));
      return endpoint && p256dh && auth ? [{ id: s.id, target: { endpoint, p256dh, auth } }] : [];
    });
  }

  /** Ticks every `intervalMs` (one tick at a time; a failed tick is logged and the next one tries again). */
  start(intervalMs = REMINDER_TICK_MS): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.tick()
        .catch((err: Error) => this.logger.warn(`Reminder tick failed: ${err.message}`))
        .finally(() => (this.running = null));
    }, intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
