/*
 * The API's request and response shapes (the routes are in SPEC.md): the backend answers these, the frontend
 * reads these. Timestamps are ISO 8601 strings.
 */
import type { CareActionStatus, CareCancelReason, CareKind } from './care';
import type { FactorName, FactorScores } from './factors';
import type { PlanStatus } from './premium';

// ---- identity -----------------------------------------------------------------------------------------

/** GET /api/auth/user: the signed-in person (decrypted; all null once the account is deleted). */
export interface UserView {
  id: string;
  email: string | null;
  firstName: string | null;
  profileImageUrl: string | null;
}

// ---- ratings ------------------------------------------------------------------------------------------

/**
 * POST /api/joy-ratings: the five factor scores, whole numbers from 1 to 5; optionally the `day` rated
 * (`YYYY-MM-DD` in the person's zone, today or up to RATEABLE_DAYS_BACK days back; today when left out) and a
 * private `note` (at most NOTE_MAX characters after trimming).
 */
export type SubmitRatingRequest = FactorScores & { day?: string; note?: string | null };

/** PUT /api/joy-ratings/:id: new factor scores; `note` replaces the note (null or blank removes it, left out keeps it). */
export type CorrectRatingRequest = FactorScores & { note?: string | null };

/** A rating as its owner sees it (POST /api/joy-ratings, GET /api/joy-ratings, GET /api/joy-ratings/latest). */
export interface RatingView extends FactorScores {
  id: string;
  createdAt: string;
  /** The mean of the five factors, one decimal (see `overallScore`). */
  overallScore: number;
  /** The day it rates (`YYYY-MM-DD` in the person's time zone). */
  day: string;
  /** The owner's private note, or null. Only ever shown to the owner. */
  note: string | null;
}

/** One day of GET /api/joy-ratings/calendar: the mean overall score of its ratings (one decimal) and how many. */
export interface CalendarDayView {
  day: string;
  overallScore: number;
  count: number;
}

/** GET /api/joy-ratings/calendar?year=YYYY */
export interface RatingCalendarView {
  year: number;
  days: CalendarDayView[];
  /** Consecutive rated days ending today, or yesterday when today is not rated yet. */
  currentStreak: number;
  /** The longest run of consecutive rated days ever. */
  longestStreak: number;
}

/**
 * GET /api/joy-ratings/summary?from=YYYY-MM-DD&to=YYYY-MM-DD (each optional, inclusive; by the ratings' own day):
 * the caller's ratings of those days in aggregate, from the per-day sums the server keeps (no list is read).
 */
export interface RatingSummaryView {
  from: string | null;
  to: string | null;
  /** How many ratings. */
  count: number;
  /** How many distinct days have at least one rating. */
  daysTracked: number;
  /** The mean overall score and the mean of each factor, one decimal (as `meanScore`); null without ratings. */
  averages: { overall: number | null } & Record<FactorName, number | null>;
}

// ---- groups -------------------------------------------------------------------------------------------

/** POST /api/groups */
export interface CreateGroupRequest {
  name: string;
  description?: string;
}

/** POST /api/groups/join */
export interface JoinGroupRequest {
  inviteCode: string;
}

/** A group as the API shows it to its members. */
export interface GroupView {
  id: string;
  name: string;
  description: string | null;
  inviteCode: string;
  createdAt: string;
}

/** GET /api/groups/removals: a group whose owner removed the signed-in person (the last 30 days, newest first). */
export interface GroupRemovalView {
  groupId: string;
  /** The group's name when they were removed. */
  groupName: string;
  removedAt: string;
  /** The group was deleted since (it cannot be joined again). */
  groupDeleted: boolean;
}

/** GET /api/groups/:id: a group with its figures (members only). */
export interface GroupDetailView extends GroupView {
  memberCount: number;
  /** Members whose latest rating is in the last 7 days (see `isInLastWeek`, UTC). */
  activeThisWeek: number;
  /** Mean of the members' latest overall scores, one decimal; 0 when nobody has rated. */
  averageScore: number;
  /** Ratings of the members in the last 7 days that the asking member may see (made since both joined). */
  recentRatingsCount: number;
  /** The member who may rename, remove members and delete: the creator, then the longest-standing member. */
  ownerId: string | null;
}

/** GET /api/groups/:id/members: a member as the group sees them (never the five factors). */
export interface GroupMemberView {
  id: string;
  firstName: string | null;
  email: string | null;
  profileImageUrl: string | null;
  latestScore: number | null;
  isOwner: boolean;
}

/** GET /api/groups/:id/ratings: newest first, the overall score only, never the five factors. */
export interface GroupRatingView {
  id: string;
  userId: string;
  overallScore: number;
  createdAt: string;
  /** The day it rates (`YYYY-MM-DD`); absent for ratings kept before days were, or listed before 11-27. */
  day?: string;
}

// ---- billing ------------------------------------------------------------------------------------------

/** GET /api/subscription-status (and the answer of cancel and sandbox confirm). */
export interface SubscriptionStatusView {
  isPremium: boolean;
  status: PlanStatus;
  /** Active: the renewal date; canceling: the end date; lapsed: since when; ended: when it ended. */
  currentPeriodEnd: string | null;
  cancelAtPeriodEnd: boolean;
  /**
   * True while Joy Premium is the operator's grant (`npm run users -- grant-premium`): nobody pays, nothing renews,
   * and there is nothing to cancel or resume; it ends at `currentPeriodEnd`. Absent otherwise (answers before it
   * existed never carried it).
   */
  granted?: boolean;
}

/** POST /api/create-subscription: a client secret to pay with, or none when the user already has Joy Premium. */
export interface CreateSubscriptionResponse {
  clientSecret?: string;
}

/** GET /api/billing/config: which payment form to show. */
export type BillingClientConfig = { provider: 'stripe'; publishableKey: string } | { provider: 'sandbox' } | { provider: 'none' };

// ---- care ---------------------------------------------------------------------------------------------

/** POST /api/care-actions */
export interface SendCareRequest {
  groupId: string;
  recipientId: string;
  kind: CareKind;
  message?: string | null;
}

/** POST /api/care-actions answers this. */
export interface CareActionView {
  id: string;
  groupId: string;
  senderId: string;
  recipientId: string;
  kind: CareKind;
  message: string | null;
  sentAt: string;
  status: CareActionStatus;
}

/** GET /api/care-actions/received */
export interface ReceivedCareActionView {
  id: string;
  groupId: string;
  senderId: string;
  senderFirstName: string | null;
  kind: CareKind;
  message: string | null;
  sentAt: string;
  status: CareActionStatus;
  /** When the recipient said thanks (POST /api/care-actions/:id/thank), or null. */
  thankedAt: string | null;
}

/** GET /api/care-actions/sent */
export interface SentCareActionView {
  id: string;
  groupId: string;
  recipientId: string;
  recipientFirstName: string | null;
  kind: CareKind;
  message: string | null;
  sentAt: string;
  status: CareActionStatus;
  /** When the recipient said thanks, or null: the sender sees it on the Sent page. */
  thankedAt: string | null;
  /** Why it was not ordered, when `status` is `cancelled`; else null. */
  cancelReason: CareCancelReason | null;
}

/** GET /api/groups/:id/care-suggestions: other members whose latest overall score is below the threshold. */
export interface CareSuggestionView {
  userId: string;
  firstName: string | null;
  latestScore: number;
}

// ---- insights -----------------------------------------------------------------------------------------

export const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

export interface WeeklyFactorMeans extends Record<FactorName, number> {
  /** ISO week, e.g. "2026-W03". */
  week: string;
  /** The week's Monday, YYYY-MM-DD (UTC). */
  weekStart: string;
  count: number;
  overall: number;
}

export interface WeekdayMean {
  weekday: Weekday;
  count: number;
  /** Mean overall score, or null without ratings on that weekday. */
  mean: number | null;
}

export interface ForecastDay {
  /** YYYY-MM-DD (UTC). */
  date: string;
  expected: number;
  low: number;
  high: number;
}

/** GET /api/insights/advanced (Joy Premium). */
export interface AdvancedInsights {
  weeklyFactors: WeeklyFactorMeans[];
  weekdayPattern: WeekdayMean[];
  /** Null with fewer than 7 distinct days of ratings. */
  forecast: ForecastDay[] | null;
  /** The oldest rating's timestamp (when the person first rated), or null without ratings. */
  since: string | null;
  /**
   * The first day rated (`YYYY-MM-DD`, the ratings' own days): where the history the analytics cover begins, earlier
   * than `since` when missed days were rated later; null without ratings.
   */
  firstDay: string | null;
}

/** GET /api/settings (and the answer of PATCH /api/settings, which takes any subset of these fields). */
export interface UserSettingsView {
  /** The name other members see; the identity provider's until the person chooses one here. */
  firstName: string | null;
  /** The IANA zone the person's days are counted in; null until set (the browser sets it at the first sign-in). */
  timeZone: string | null;
  /** "HH:MM" in that zone when the daily reminder is due, or null: no reminder. */
  reminderTime: string | null;
  /** Whether other members may send this person care actions (and see them in care suggestions); default true. */
  acceptCareActions: boolean;
}

/** GET /api/push/public-key: the install's VAPID public key (base64url) for PushManager.subscribe. */
export interface PushPublicKeyView {
  publicKey: string;
}

/** POST /api/push/subscriptions: a browser's PushSubscription.toJSON(). */
export interface PushSubscriptionInput {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

// ---- account ------------------------------------------------------------------------------------------

/**
 * POST /api/account/import answers this: how many ratings of the file were added, and how many were here
 * already (the same rating: docs/decisions.md, "Importing ratings").
 */
export interface ImportResultView {
  imported: number;
  skipped: number;
}
