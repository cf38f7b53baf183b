import { CARE_SUGGESTION_THRESHOLD } from '@joy/domain';
import type { MemberJoined, MemberLeft } from '../groups/groups.decider';
import type { RatingSubmitted } from '../ratings/ratings.decider';
import type { UserSettingsChanged } from '../settings/settings.decider';
import { dataOf, Projector } from './projector';

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
  /** Global position of the latest rating's event. */
  latestSeq: number;
  needsSupport: boolean;
  /** The person declined care actions (settings): never suggested, and care sent to them is refused. */
  declinesCare?: boolean;
}

export const careSuggestionsProjector: Projector<CareSupportDoc> = {
  collection: 'care-suggestions',
  eventTypes: ['MemberJoined', 'MemberLeft', 'RatingSubmitted', 'UserDeleted', 'UserSettingsChanged'],
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
    const d = dataOf<RatingSubmitted['data']>(event);
    // The latest by its time: an imported rating made before the latest one (account-import.ts) changes nothing.
    if (current.latestAt !== null && Date.parse(d.submittedAt) < Date.parse(current.latestAt)) return current;
    return {
      ...current,
      latestScore: d.overallScore,
      latestAt: d.submittedAt,
      latestSeq: event.position,
      needsSupport: d.overallScore < CARE_SUGGESTION_THRESHOLD,
    };
  },
};
