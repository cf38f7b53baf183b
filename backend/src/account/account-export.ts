import { Inject, Injectable } from '@nestjs/common';
import { stringify } from 'csv-stringify';
import { Readable } from 'node:stream';
import { setImmediate as turn } from 'node:timers/promises';
import { EVENT_STORE, type EventStore } from '../event-store/event-store.port';
import { KEY_STORE, type KeyStore } from '../identity/key-store';
import { readProfile, readProfiles } from '../identity/profiles';
import { ownerOf } from '../groups/groups.decider';
import { CareActionDoc, careActionsProjector } from '../projections/care-actions.projector';
import { byJoinOrder, GroupDoc, groupsProjector, MembershipsDoc, membershipsProjector } from '../projections/groups.projector';
import { type PushSubscriptionsDoc, pushSubscriptionsProjector } from '../projections/push-subscriptions.projector';
import type { UserProfileDoc } from '../projections/user-profiles.projector';
import { FACTOR_NAMES, type RatingView } from '@joy/domain';
import { upcastRatingEvent } from '../ratings/rating-events';
import { type RatingEvent, ratingViewOf, standingRatings } from '../ratings/ratings.decider';
import { READ_MODELS, type ReadModelStore } from '../read-models/read-model-store.port';
import { readUserSettings } from '../settings/settings.service';

/*
 * The export of a person's own data (PRODUCT.md "Data and account"), as JSON or CSV. Both are produced as a
 * stream of small pieces pulled by the HTTP response (Readable.from over an async generator, piped with
 * backpressure): nothing builds the whole file in memory. Ratings come from the event store (the person's
 * `ratings-<userId>` stream: every rating that stands, as last corrected, oldest first); settings as GET /api/settings
 * reads them (the user stream), with the number of devices that receive reminders; groups and care actions from the read models.
 * The format is documented in docs/account-export.md.
 */

export type ExportFormat = 'json' | 'csv';

/** Rating events opened (notes decrypted) between two turns of the event loop. */
const OPENED_PER_TURN = 2000;

/** A rating in the export: as the API shows it to its owner. */
export type ExportedRating = RatingView;

export interface ExportedGroup {
  id: string;
  name: string;
  /** How the person joined: `creator` (they made it) or `member` (with its invite code). Unchanged since. */
  role: string;
  /** Whether the person owns the group now: the creator while they are in it, then the longest-standing member. */
  owner: boolean;
  joinedAt: string;
}

/**
 * The person's settings, as the Settings page shows them (their first name is the profile's). Of the devices that
 * receive reminders only how many there are: a push subscription's endpoint and keys are credentials of a browser
 * at a push service (whoever holds them can send it notifications), not data to hand out in a file.
 */
export interface ExportedSettings {
  /** The IANA zone their days are counted in; null until one is set (days are counted in UTC until then). */
  timeZone: string | null;
  /** "HH:MM" in that zone when the daily reminder is due; null: the reminder is off. */
  reminderTime: string | null;
  /** Devices (browsers) subscribed to reminders as notifications. */
  reminderDevices: number;
  /** Whether other members may send them care actions. */
  acceptCareActions: boolean;
}

export interface ExportedCareAction {
  id: string;
  groupId: string;
  groupName: string | null;
  /** The other person: the recipient of care sent, the sender of care received. */
  otherUserId: string;
  otherFirstName: string | null;
  kind: string;
  message: string | null;
  sentAt: string;
  status: string;
  fulfilledAt: string | null;
  /** When the recipient said thanks, or null. */
  thankedAt: string | null;
  /** When it was cancelled instead of ordered, and why (recipient_declined, left_group, account_deleted), or null. */
  cancelledAt: string | null;
  cancelReason: string | null;
}

export interface ExportedProfile {
  id: string;
  email: string | null;
  firstName: string | null;
  profileImageUrl: string | null;
  registeredAt: string | null;
}

/** The CSV's columns: one file, one header; `section` says what a row is (profile, settings, rating, group, care_sent, care_received). */
export const CSV_COLUMNS = [
  'section',
  'id',
  'date',
  'overall_score',
  ...FACTOR_NAMES,
  'day',
  'note',
  'group_id',
  'group_name',
  'role',
  'care_kind',
  'care_message',
  'care_status',
  'other_user_id',
  'other_first_name',
  'first_name',
  'email',
  'profile_image_url',
  // Added after the columns above (which keep their places): care, groups, settings, cancelled care.
  'fulfilled_at',
  'thanked_at',
  'owner',
  'time_zone',
  'reminder_time',
  'reminder_devices',
  'accept_care_actions',
  'cancelled_at',
  'cancel_reason',
] as const;
type CsvRow = Partial<Record<(typeof CSV_COLUMNS)[number], string | number | null>>;

/** A yes/no cell as words: csv-stringify writes true as `1` and false as an empty cell, which reads as "unknown". */
const yesNo = (value: boolean) => (value ? 'true' : 'false');

/** `joy-export-YYYY-MM-DD.<ext>` (UTC date). */
export function exportFileName(format: ExportFormat, now = new Date()): string {
  return `joy-export-${now.toISOString().slice(0, 10)}.${format}`;
}

@Injectable()
export class AccountExport {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(READ_MODELS) private readonly readModels: ReadModelStore,
    @Inject(KEY_STORE) private readonly keys: KeyStore,
  ) {}

  /** The export as a byte stream, pulled piece by piece by whoever reads it. */
  stream(userId: string, format: ExportFormat, now = new Date()): Readable {
    if (format === 'json') return Readable.from(this.json(userId, now), { objectMode: false });
    return Readable.from(this.csvRows(userId), { objectMode: true }).pipe(
      // escape_formulas: a group name or message starting with = + - @ is not run as a spreadsheet formula.
      // quoted_match: a note or message of several lines stays one cell (csv-stringify quotes a cell holding \r\n,
      // not one holding only \n); unquoted, its second line began a row of its own, where a formula someone else
      // wrote in a care message would run.
      stringify({ header: true, columns: [...CSV_COLUMNS], escape_formulas: true, quoted_match: /[\r\n]/, bom: true, record_delimiter: 'windows' }),
    );
  }

  async profile(userId: string): Promise<ExportedProfile> {
    const [profile, doc] = await Promise.all([
      readProfile(this.readModels, this.keys, userId),
      this.readModels.get<UserProfileDoc>('user-profiles', userId),
    ]);
    return {
      id: userId,
      email: profile?.email ?? null,
      firstName: profile?.firstName ?? null,
      profileImageUrl: profile?.profileImageUrl ?? null,
      registeredAt: doc?.registeredAt ?? null,
    };
  }

  /**
   * Every standing rating, oldest first by the time it was made (an imported rating comes later in the stream than
   * it was made), with its values as last corrected (a withdrawn one is left out): the stream folded by the ratings
   * decider's rule (`standingRatings`), then given to the consumer one at a time.
   */
  async *ratings(userId: string): AsyncGenerator<ExportedRating> {
    // Notes are opened with the person's key: the export is the one place, besides their own lists, they are read.
    const [events, key] = await Promise.all([this.store.readStream(`ratings-${userId}`), this.keys.existingKey(userId)]);
    // Opened a part at a time, letting the event loop turn in between: a history of 100,000 ratings takes seconds,
    // which other people's requests should not wait for.
    const opened: RatingEvent[] = [];
    for (let from = 0; from < events.length; from += OPENED_PER_TURN) {
      if (from > 0) await turn();
      for (const event of events.slice(from, from + OPENED_PER_TURN)) opened.push(upcastRatingEvent(event, key));
    }
    const ratings = standingRatings(opened).map((facts) => ({ view: ratingViewOf(facts), at: Date.parse(facts.submittedAt) }));
    await turn();
    // Stable: ratings made at the same instant keep the stream's order. (Each time parsed once, not per comparison.)
    ratings.sort((a, b) => a.at - b.at);
    for (const { view } of ratings) yield view;
  }

  async settings(userId: string): Promise<ExportedSettings> {
    const [settings, push] = await Promise.all([
      readUserSettings(this.store, this.keys, userId),
      this.readModels.get<PushSubscriptionsDoc>(pushSubscriptionsProjector.collection, userId),
    ]);
    return {
      timeZone: settings.timeZone,
      reminderTime: settings.reminderTime,
      reminderDevices: push?.subscriptions.length ?? 0,
      acceptCareActions: settings.acceptCareActions,
    };
  }

  async groups(userId: string): Promise<ExportedGroup[]> {
    const memberships = await this.readModels.get<MembershipsDoc>(membershipsProjector.collection, userId);
    const list = memberships?.groups ?? [];
    const groups = await Promise.all(list.map((m) => this.readModels.get<GroupDoc>(groupsProjector.collection, m.groupId)));
    // Owner now by the groups' rule (ownerOf, as GET /api/groups/:id answers ownerId): ownership passes on by join order.
    const owns = (g: GroupDoc) => ownerOf([...g.members].sort(byJoinOrder).map((m) => m.userId)) === userId;
    // A deleted group's document is gone; its memberships stay (no MemberLeft): left out, as from GET /api/groups.
    return list.flatMap((m, i) => {
      const group = groups[i];
      return group ? [{ id: m.groupId, name: group.name, role: m.role, owner: owns(group), joinedAt: m.joinedAt }] : [];
    });
  }

  async care(userId: string, direction: 'sent' | 'received'): Promise<ExportedCareAction[]> {
    const docs = await this.readModels.find<CareActionDoc>(
      careActionsProjector.collection,
      direction === 'sent' ? { senderId: userId } : { recipientId: userId },
      { sort: { field: 'seq', direction: 'asc' } },
    );
    const other = (d: CareActionDoc) => (direction === 'sent' ? d.recipientId : d.senderId);
    const names = await readProfiles(this.readModels, this.keys, docs.map(other));
    const groupIds = [...new Set(docs.map((d) => d.groupId))];
    const [groups, memberships] = await Promise.all([
      Promise.all(groupIds.map((id) => this.readModels.get<GroupDoc>(groupsProjector.collection, id))),
      this.readModels.get<MembershipsDoc>(membershipsProjector.collection, userId),
    ]);
    // A group's name now, for the groups the person is in: one they left or were removed from may have been
    // renamed since, and that name is not theirs to learn (GET /api/groups/:id answers them 404).
    const member = new Set((memberships?.groups ?? []).map((m) => m.groupId));
    const groupName = new Map(groupIds.map((id, i) => [id, member.has(id) ? (groups[i]?.name ?? null) : null]));
    return docs.map((d) => ({
      id: d.id,
      groupId: d.groupId,
      groupName: groupName.get(d.groupId) ?? null,
      otherUserId: other(d),
      otherFirstName: names.get(other(d))?.firstName ?? null,
      kind: d.kind,
      message: d.message,
      sentAt: d.sentAt,
      status: d.status,
      fulfilledAt: d.fulfilledAt,
      thankedAt: d.thankedAt ?? null,
      cancelledAt: d.cancelledAt ?? null,
      cancelReason: d.cancelReason ?? null,
    }));
  }

  /**
   * `{ "exportedAt", "formatVersion": 1, "profile", "settings", "ratings": [...], "groups": [...], "careActionsSent": [...],
   * "careActionsReceived": [...] }`, one rating per line. Sections added since are additions only (the import reads
   * past them), so the format version stays 1.
   */
  private async *json(userId: string, now: Date): AsyncGenerator<string> {
    yield `{"exportedAt":${JSON.stringify(now.toISOString())},"formatVersion":1,\n`;
    yield `"profile":${JSON.stringify(await this.profile(userId))},\n`;
    yield `"settings":${JSON.stringify(await this.settings(userId))},\n"ratings":[`;
    let first = true;
    for await (const rating of this.ratings(userId)) {
      yield `${first ? '\n' : ',\n'}${JSON.stringify(rating)}`;
      first = false;
    }
    yield `\n],\n"groups":${JSON.stringify(await this.groups(userId))},\n`;
    yield `"careActionsSent":${JSON.stringify(await this.care(userId, 'sent'))},\n`;
    yield `"careActionsReceived":${JSON.stringify(await this.care(userId, 'received'))}\n}\n`;
  }

  private async *csvRows(userId: string): AsyncGenerator<CsvRow> {
    const p = await this.profile(userId);
    yield { section: 'profile', id: p.id, date: p.registeredAt, first_name: p.firstName, email: p.email, profile_image_url: p.profileImageUrl };
    const s = await this.settings(userId);
    yield {
      section: 'settings',
      time_zone: s.timeZone,
      reminder_time: s.reminderTime,
      reminder_devices: s.reminderDevices,
      accept_care_actions: yesNo(s.acceptCareActions),
    };
    for await (const r of this.ratings(userId)) {
      yield {
        section: 'rating',
        id: r.id,
        date: r.createdAt,
        overall_score: r.overallScore,
        relationships: r.relationships,
        health: r.health,
        purpose: r.purpose,
        growth: r.growth,
        joy: r.joy,
        day: r.day,
        note: r.note,
      };
    }
    for (const g of await this.groups(userId)) {
      yield { section: 'group', id: g.id, date: g.joinedAt, group_id: g.id, group_name: g.name, role: g.role, owner: yesNo(g.owner) };
    }
    for (const direction of ['sent', 'received'] as const) {
      for (const c of await this.care(userId, direction)) {
        yield {
          section: `care_${direction}`,
          id: c.id,
          date: c.sentAt,
          group_id: c.groupId,
          group_name: c.groupName,
          care_kind: c.kind,
          care_message: c.message,
          care_status: c.status,
          other_user_id: c.otherUserId,
          other_first_name: c.otherFirstName,
          fulfilled_at: c.fulfilledAt,
          thanked_at: c.thankedAt,
          cancelled_at: c.cancelledAt,
          cancel_reason: c.cancelReason,
        };
      }
    }
  }
}
