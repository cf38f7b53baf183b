import { CARE_SUGGESTION_THRESHOLD, latestFirst } from '@joy/domain';
import type { MemberJoined, MemberLeft } from '../groups/groups.decider';
import type { RatingCorrected, RatingSubmitted, RatingWithdrawn } from '../ratings/ratings.decider';
import type { UserSettingsChanged } from '../settings/settings.decider';
import { dataOf, Projector, withFields } from './projector';

/**
 * care-suggestions: per user (keyed by user id), the groups they are in and their latest overall score, with
 * `needsSupport` when it is below CARE_SUGGESTION_THRESHOLD. Per user rather than per group for the reason
 * group-member-stats gives: a rating made before joining must count once the user joins, and `evolve` sees
 * only its own document. A group's suggestions are one `find({ groupIds: groupId, needsSupport: true })`.
 */
export interface CareSupportDoc {
  userId: string;
  groupIds: string[];
  latestScore: number | null;
  latestAt: string | null;
  /** The day the latest rating rates (absent on ratings from before days were kept: the UTC day of `latestAt`). */
  latestDay?: string;
  /** The latest rating's id (absent on documents projected before corrections existed: then `latestAt` tells). */
  latestRatingId?: string;
  /** Global position of the latest rating event applied (a submission, or the withdrawal that made an older one latest). */
  latestSeq: number;
  needsSupport: boolean;
  /** The person declined care actions (settings): never suggested, and care sent to them is refused. */
  declinesCare?: boolean;
}

export const careSuggestionsProjector: Projector<CareSupportDoc> = {
  collection: 'care-suggestions',
  eventTypes: ['MemberJoined', 'MemberLeft', 'RatingSubmitted', 'RatingCorrected', 'RatingWithdrawn', 'UserDeleted', 'UserSettingsChanged'],
  indexes: ['groupIds'],
  ids: (event) => [dataOf<{ userId: string }>(event).userId],
  evolve(doc, event) {
    // A member who left is no longer suggested in that group; a deleted account is suggested nowhere.
    if (event.type === 'UserDeleted') return null;
    if (event.type === 'MemberLeft') {
      if (!doc) return null;
      const { groupId } = dataOf<MemberLeft['data']>(event);
      return { ...doc, groupIds: doc.groupIds.filter((g) => g !== groupId) };
    }
    const userId = dataOf<{ userId: string }>(event).userId;
    const current: CareSupportDoc = doc ?? { userId, groupIds: [], latestScore: null, latestAt: null, latestSeq: 0, needsSupport: false };
    if (event.type === 'UserSettingsChanged') {
      const { acceptCareActions } = dataOf<UserSettingsChanged['data']>(event);
      return acceptCareActions === undefined ? current : { ...current, declinesCare: !acceptCareActions };
    }
    if (event.type === 'MemberJoined') {
      const { groupId } = dataOf<MemberJoined['data']>(event);
      return current.groupIds.includes(groupId) ? current : { ...current, groupIds: [...current.groupIds, groupId] };
    }
    if (event.position <= current.latestSeq) return current;
    if (event.type === 'RatingCorrected') {
      // Only a correction of the latest rating changes the score that counts.
      const d = dataOf<RatingCorrected['data']>(event);
      const isLatest = current.latestRatingId ? current.latestRatingId === d.ratingId : current.latestAt === d.submittedAt;
      return isLatest ? withLatest(current, d, current.latestSeq) : current;
    }
    if (event.type === 'RatingWithdrawn') {
      // The event names the rating that is latest now; none left: no score, never suggested.
      const { latest } = dataOf<RatingWithdrawn['data']>(event);
      if (latest) return withLatest(current, latest, event.position);
      const { latestRatingId: _gone, latestDay: _day, ...rest } = current;
      return { ...rest, latestScore: null, latestAt: null, latestSeq: event.position, needsSupport: false };
    }
    const d = dataOf<RatingSubmitted['data']>(event);
    // The latest by its day, then its time (latestFirst): a missed day rated today, or an imported rating made
    // before the latest one (account-import.ts), changes nothing.
    if (current.latestAt !== null && latestFirst({ day: d.day, createdAt: d.submittedAt }, { day: current.latestDay, createdAt: current.latestAt }) > 0) return current;
    return withLatest(current, d, event.position);
  },
};

function withLatest(doc: CareSupportDoc, rating: { ratingId: string; overallScore: number; submittedAt: string; day?: string }, seq: number): CareSupportDoc {
  return withFields(doc, {
    latestScore: rating.overallScore,
    latestAt: rating.submittedAt,
    latestDay: rating.day,
    latestRatingId: rating.ratingId,
    latestSeq: seq,
    needsSupport: rating.overallScore < CARE_SUGGESTION_THRESHOLD,
  });
}
