/** Shapes of the API responses (see the API contract in frontend/README.md). */

export interface User {
  id: string;
  email?: string | null;
  firstName?: string | null;
  profileImageUrl?: string | null;
}

export interface SubscriptionStatus {
  isPremium: boolean;
  status: string;
}

export type FactorName = 'relationships' | 'health' | 'purpose' | 'growth' | 'joy';

export type FactorScores = Record<FactorName, number>;

export interface JoyRating extends FactorScores {
  id: string;
  /** ISO 8601 timestamp. */
  createdAt: string;
  /** Mean of the five factors, one decimal, computed by the server. */
  overallScore: number;
}

export interface Group {
  id: string;
  name: string;
  description?: string | null;
  inviteCode: string;
  createdAt: string;
}

/** GET /api/groups/:id — a group with its figures (members only). */
export interface GroupDetail extends Group {
  memberCount: number;
  /** Members whose latest rating is at most 7 days old. */
  activeThisWeek: number;
  /** Mean of the members' latest overall scores, one decimal; 0 when nobody has rated. */
  averageScore: number;
  /** The members' ratings in the last 7 days. */
  recentRatingsCount: number;
}

/** GET /api/groups/:id/members — a member as the group sees them (never the five factors). */
export interface GroupMember {
  id: string;
  firstName?: string | null;
  email?: string | null;
  profileImageUrl?: string | null;
  latestScore: number | null;
}

/** GET /api/groups/:id/ratings — newest first, the overall score only. */
export interface GroupRating {
  id: string;
  userId: string;
  overallScore: number;
  createdAt: string;
}
