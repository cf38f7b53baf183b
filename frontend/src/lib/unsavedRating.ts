import { FACTOR_NAMES, type FactorScores, isFactorScore } from '@joy/domain';

/*
 * A new rating whose save found the session over (signed out in another tab, or expired) is kept in this tab until
 * the same person is signed in again, so that sign-in does not cost them the stars and the note they had written.
 * So is one saved offline, waiting to be sent: a reload before the connection came back lost it (a review, 11-28).
 * sessionStorage: this tab only, gone when it closes; given back once, and only to the person who wrote it.
 */
const KEY = 'joy.unsaved-rating';
/** A draft older than this is not given back: its day is likely no longer what the person meant. */
const KEPT_MS = 12 * 3600 * 1000;

export interface UnsavedRating {
  userId: string;
  scores: FactorScores;
  note: string;
  /** An earlier day picked (`YYYY-MM-DD`), or null for the day it is saved on. */
  day: string | null;
  /** Why it was kept: the session ended, or it waited offline (absent: the session ended, as before 11-28). */
  reason?: 'signed-out' | 'offline';
  /** The save's Idempotency-Key: if it did reach the server after all, saving it again stores nothing twice. */
  idempotencyKey?: string;
}

export function keepUnsavedRating(draft: UnsavedRating, now = Date.now()): void {
  try {
    sessionStorage.setItem(KEY, JSON.stringify({ ...draft, at: now }));
  } catch {
    // Storage refused (private mode, full): the draft is lost as it was before.
  }
}

/** The draft kept for `userId`, or null. Read without removing it: `dropUnsavedRating` does, once it is shown. */
export function unsavedRatingOf(userId: string | undefined, now = Date.now()): UnsavedRating | null {
  if (!userId) return null;
  let draft: unknown;
  try {
    draft = JSON.parse(sessionStorage.getItem(KEY) ?? 'null');
  } catch {
    return null;
  }
  const d = draft as (UnsavedRating & { at?: unknown }) | null;
  const fresh = typeof d?.at === 'number' && now - d.at >= 0 && now - d.at < KEPT_MS;
  const valid = !!d && typeof d.note === 'string' && (d.day === null || /^\d{4}-\d{2}-\d{2}$/.test(String(d.day))) && FACTOR_NAMES.every((f) => isFactorScore(d.scores?.[f]));
  if (!fresh || !valid || d.userId !== userId) return null;
  const reason = d.reason === 'offline' ? 'offline' : 'signed-out';
  const key = typeof d.idempotencyKey === 'string' && /^[\x21-\x7e]{1,255}$/.test(d.idempotencyKey) ? { idempotencyKey: d.idempotencyKey } : {};
  return { userId: d.userId, scores: Object.fromEntries(FACTOR_NAMES.map((f) => [f, d.scores[f]])) as FactorScores, note: d.note, day: d.day, reason, ...key };
}

/** Forgets the draft: given back, or another person signed in (it is never theirs to see). */
export function dropUnsavedRating(): void {
  try {
    sessionStorage.removeItem(KEY);
  } catch {
    // nothing kept
  }
}
