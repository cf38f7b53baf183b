import { DEFAULT_TIME_ZONE, dayOf } from '@joy/domain';
import { Logger } from '@nestjs/common';
import { decideAndAppend } from '../event-store/decider';
import type { EventStore, RecordedEvent } from '../event-store/event-store.port';
import type { KeyStore } from '../identity/key-store';
import { decryptField } from '../identity/personal-data';
import { type PushSubscriptionsDoc, pushSubscriptionsProjector } from '../projections/push-subscriptions.projector';
import { type UserSettingsDoc, userSettingsProjector } from '../projections/user-settings.projector';
import type { ReadModelStore } from '../read-models/read-model-store.port';
import { nextAttemptAt, PUSH_CONCURRENCY, runLimited } from './push-delivery';
import type { PushMessage, PushResult, PushSender, PushTarget } from './push-sender';
import { decidePush } from './push.service';
import { reminderDecision, ReminderSent, remindersDecider, remindersStream, reminderWindowEnd } from './reminders.decider';

export const REMINDER_MESSAGE: Omit<PushMessage, 'tag'> = {
  title: 'How was your day?',
  body: 'Take a minute to rate today in Joy.',
  url: '/',
};

/**
 * The reminder of a day that ended meanwhile (its window runs an hour past the reminder time, past midnight for a
 * late one): about yesterday, opening History, whose calendar rates a day left blank (Home rates the new day).
 */
export const LATE_REMINDER_MESSAGE: Omit<PushMessage, 'tag'> = {
  title: 'How was your day yesterday?',
  body: 'It is not rated yet: take a minute to rate it in Joy.',
  url: '/history',
};

/** How often the scheduler looks whose reminder is due (well inside REMINDER_WINDOW_MINUTES). */
export const REMINDER_TICK_MS = 30_000;

export interface TickResult {
  /** People reminded this tick (their ReminderSent recorded). */
  reminded: number;
  /** Pushes the push service took (first tries and retries). */
  sent: number;
  /** Devices the push service says are gone (404/410): forgotten. */
  gone: number;
  /** Pushes given up for the day (refused, out of tries, past the window, or abandoned at shutdown). */
  failed: number;
  /** Pushes that failed this tick and will be tried again by a later one. */
  retrying: number;
}

export interface SchedulerOptions {
  /** Pushes in flight at once, across people. */
  concurrency: number;
  /** A tick that takes longer than this is logged at warn (the interval: the next one would be skipped). */
  overrunMs: number;
}

/** One device's push for one day: a first try, or a retry. */
interface Delivery {
  userId: string;
  subscriptionId: string;
  day: string;
  /** 1 for the first try. */
  attempt: number;
  /** The end of the reminder's window (epoch ms): no try after it. */
  until: number;
  /** The person's time zone: a push after the day ended there speaks of yesterday. */
  zone: string;
}

const upcast = (e: RecordedEvent) => ({ type: e.type, data: e.data }) as unknown as ReminderSent;
/** A device in logs: the start of its keyed hash, never its endpoint (a credential of the person's browser). */
const deviceLabel = (subscriptionId: string) => subscriptionId.slice(0, 8);

/**
 * Sends the daily reminders (runs where the pipeline runs: the worker, or the embedded process). Each tick finds
 * the people with a reminder time (user-settings), keeps those whose reminder is due now (`reminderDecision`:
 * their time in their zone has come, that day is not rated, none sent for it), records `ReminderSent` on their
 * reminders stream first (the expected version makes a second tick, a second worker or a restart a no-op for
 * that day), then pushes to their devices and forgets those the push service says are gone (404/410).
 *
 * Pushes go out PUSH_CONCURRENCY at a time across people, each bounded by the sender's deadline, first devices of
 * everyone before second ones: a push service that stalls (endpoints are user-supplied) costs one slot for at most
 * the deadline. A push that fails for a while (no answer, 429, 5xx) is kept here and tried again by later ticks
 * until the person's window ends (Retry-After honoured); not if they have rated meanwhile, turned reminders off or
 * dropped the device. Retries live in this process only: a restart drops them rather than risk a second reminder
 * from another worker (ReminderSent stays the one record per day). The clock is injectable, so tests drive days
 * and zones without waiting.
 */
export class ReminderScheduler {
  private readonly logger = new Logger('Reminders');
  private readonly options: SchedulerOptions;
  private timer: NodeJS.Timeout | null = null;
  private running: { since: number } | null = null;
  /** Ticks in flight (from the timer or called directly): stop() aborts their pushes and waits for them. */
  private readonly ticks = new Set<Promise<unknown>>();
  private shutdown = new AbortController();
  /** Failed pushes to try again, by device and day, with the time of the next try (epoch ms on the tick clock). */
  private readonly retries = new Map<string, Delivery & { at: number }>();

  constructor(
    private readonly store: EventStore,
    private readonly readModels: ReadModelStore,
    private readonly keys: KeyStore,
    private readonly sender: PushSender,
    private readonly clock: () => Date = () => new Date(),
    options: Partial<SchedulerOptions> = {},
  ) {
    this.options = { concurrency: PUSH_CONCURRENCY, overrunMs: REMINDER_TICK_MS, ...options };
  }

  /** Retries waiting for a later tick (for tests and health). */
  get pendingRetries(): number {
    return this.retries.size;
  }

  async tick(now: Date = this.clock()): Promise<TickResult> {
    const tick = this.run(now);
    this.ticks.add(tick);
    try {
      return await tick;
    } finally {
      this.ticks.delete(tick);
    }
  }

  private async run(now: Date): Promise<TickResult> {
    const started = Date.now();
    const signal = this.shutdown.signal;
    const result: TickResult = { reminded: 0, sent: 0, gone: 0, failed: 0, retrying: 0 };
    const failures = new Map<string, number>();
    const people = await this.readModels.find<UserSettingsDoc>(userSettingsProjector.collection, { hasReminder: true });
    const fresh: (Delivery & { target: PushTarget; order: number })[] = [];
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
      if (!append) continue; // already reminded that day (another tick or worker)
      result.reminded++;
      const until = reminderWindowEnd(person, decision.day)!.getTime();
      const zone = person.timeZone ?? DEFAULT_TIME_ZONE;
      devices.forEach((d, order) => fresh.push({ userId: person.userId, subscriptionId: d.id, target: d.target, day: decision.day, attempt: 1, until, zone, order }));
    }
    // Everyone's first device before anyone's second: many devices of one account hold up no one else.
    fresh.sort((a, b) => a.order - b.order);
    const deliveries = [...fresh, ...(await this.dueRetries(people, now, result, failures))];

    const deliver = async (d: Delivery & { target: PushTarget }) => {
      let outcome: PushResult;
      try {
        const message = d.day < dayOf(now, d.zone)! ? LATE_REMINDER_MESSAGE : REMINDER_MESSAGE;
        outcome = await this.sender.send(d.target, { ...message, tag: `joy-reminder-${d.day}` }, signal);
      } catch (err) {
        outcome = { outcome: 'failed', status: null, retryable: true, retryAfterMs: null, reason: (err as Error).name };
      }
      if (outcome.outcome === 'sent') result.sent++;
      else if (outcome.outcome === 'gone') {
        result.gone++;
        await decidePush(this.store, this.keys, { type: 'Unsubscribe', userId: d.userId, subscriptionId: d.subscriptionId, reason: 'gone', at: now }).catch((err: Error) =>
          this.logger.warn(`Forgetting gone device ${deviceLabel(d.subscriptionId)} failed: ${err.message}`),
        );
      } else {
        const what = outcome.status === null ? outcome.reason : `HTTP ${outcome.status}`;
        failures.set(what, (failures.get(what) ?? 0) + 1);
        // The tick's clock moved on while it sent (a long tick): the retry counts from when this push failed.
        const at = signal.aborted ? null : nextAttemptAt(outcome, d.attempt, now.getTime() + (Date.now() - started), d.until);
        if (at === null) result.failed++;
        else {
          result.retrying++;
          this.retries.set(`${d.userId}/${d.subscriptionId}`, { userId: d.userId, subscriptionId: d.subscriptionId, day: d.day, attempt: d.attempt + 1, until: d.until, zone: d.zone, at });
        }
      }
    };
    const abandoned = await runLimited(deliveries, this.options.concurrency, deliver, signal);
    result.failed += abandoned;
    if (abandoned > 0) failures.set('abandoned at shutdown', abandoned);

    const ms = Date.now() - started;
    if (result.reminded > 0 || result.sent > 0) this.logger.log(`Reminded ${result.reminded} people: ${result.sent} pushes sent, ${result.gone} devices gone, ${result.failed} failed, ${result.retrying} to retry`);
    if (failures.size > 0) {
      const counts = [...failures].map(([what, n]) => `${what} ×${n}`).join(', ');
      this.logger.warn(`Reminder pushes failed: ${counts} (${result.retrying} to retry, ${result.failed} given up for the day)`);
    }
    if (ms > this.options.overrunMs) this.logger.warn(`Reminder tick took ${ms} ms for ${deliveries.length} pushes (longer than the ${this.options.overrunMs} ms interval)`);
    return result;
  }

  /** The retries due at `now`, with their devices; those no longer wanted are dropped (counted failed when their window ended). */
  private async dueRetries(people: UserSettingsDoc[], now: Date, result: TickResult, failures: Map<string, number>) {
    const byId = new Map(people.map((p) => [p.userId, p]));
    const due: (Delivery & { target: PushTarget })[] = [];
    for (const [key, retry] of [...this.retries]) {
      if (retry.at > now.getTime()) continue;
      this.retries.delete(key);
      const person = byId.get(retry.userId);
      // Rated that day meanwhile, or reminders turned off: nothing to remind of.
      if (!person || person.reminderTime === null || (person.latestDay !== null && person.latestDay >= retry.day)) continue;
      if (now.getTime() >= retry.until) {
        result.failed++;
        failures.set('window over before the retry', (failures.get('window over before the retry') ?? 0) + 1);
        continue;
      }
      const device = (await this.devicesOf(retry.userId)).find((d) => d.id === retry.subscriptionId);
      if (device) due.push({ ...retry, target: device.target });
    }
    return due;
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

  /** Ticks every `intervalMs`, one at a time: a tick still running when the next is due is logged, and that one skipped. */
  start(intervalMs = REMINDER_TICK_MS): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (this.running) {
        this.logger.warn(`Reminder tick still running after ${Date.now() - this.running.since} ms: skipping this one`);
        return;
      }
      this.running = { since: Date.now() };
      this.tick()
        .catch((err: Error) => this.logger.warn(`Reminder tick failed: ${err.message}`))
        .finally(() => (this.running = null));
    }, intervalMs);
    this.timer.unref();
  }

  /** Stops ticking; pushes in flight are abandoned (their sends aborted) and the ticks they belong to awaited. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.shutdown.abort();
    await Promise.allSettled([...this.ticks]);
    this.shutdown = new AbortController();
  }
}
