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
