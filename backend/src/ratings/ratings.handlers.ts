import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler, IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { randomUUID } from 'node:crypto';
import type { FactorScores, RatingView } from '@joy/domain';
import { decideAndAppend } from '../event-store/decider';
import { EVENT_STORE, type EventStore } from '../event-store/event-store.port';
import { READ_YOUR_WRITES, type ReadYourWrites } from '../projections/read-your-writes';
import type { RatingDoc } from '../projections/ratings.projector';
import { READ_MODELS, type ReadModelStore } from '../read-models/read-model-store.port';
import { type RatingCorrected, type RatingSubmitted, ratingSavedWith, ratingsDecider, ratingViewOf, standingRating } from './ratings.decider';

export function ratingView(doc: RatingDoc): RatingView {
  const { id, createdAt, overallScore, relationships, health, purpose, growth, joy } = doc;
  return { id, createdAt, overallScore, relationships, health, purpose, growth, joy };
}

/** Newest first by the time a rating was made, then by position (the order of the events). */
export const newestRatingFirst = (a: RatingDoc, b: RatingDoc) => Date.parse(b.createdAt) - Date.parse(a.createdAt) || b.seq - a.seq;

export class SubmitRatingCommand {
  constructor(
    readonly userId: string,
    readonly scores: FactorScores,
    /** The Idempotency-Key header, when the client sent one. */
    readonly idempotencyKey?: string,
  ) {}
}

@CommandHandler(SubmitRatingCommand)
export class SubmitRatingHandler implements ICommandHandler<SubmitRatingCommand, RatingView> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(READ_YOUR_WRITES) private readonly readYourWrites: ReadYourWrites,
  ) {}

  async execute({ userId, scores, idempotencyKey }: SubmitRatingCommand): Promise<RatingView> {
    const ratingId = randomUUID();
    const { events, append, state } = await decideAndAppend(
      this.store,
      `ratings-${userId}`,
      ratingsDecider,
      { ratingId, userId, scores, at: new Date(), idempotencyKey },
      { actorUserId: userId },
      { eventIds: () => [ratingId] },
    );
    // The key saved this rating before (a double click, a retried request): the same answer, nothing stored
    // (with its values as corrected since, if it was).
    if (!append) {
      const saved = ratingSavedWith(state, idempotencyKey!)!;
      return ratingViewOf(standingRating(state, saved.ratingId) ?? saved);
    }
    // Read-your-writes: answer once the lists the user reads next include this rating.
    await this.readYourWrites.waitFor(append!.position, { eventTypes: ['RatingSubmitted'] });
    return ratingViewOf(events[0].data as RatingSubmitted['data']);
  }
}

export class CorrectRatingCommand {
  constructor(
    readonly userId: string,
    readonly ratingId: string,
    readonly scores: FactorScores,
  ) {}
}

/** PUT /api/joy-ratings/:id: the person's own rating with new values (404 for any other, or a withdrawn one). */
@CommandHandler(CorrectRatingCommand)
export class CorrectRatingHandler implements ICommandHandler<CorrectRatingCommand, RatingView> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(READ_YOUR_WRITES) private readonly readYourWrites: ReadYourWrites,
  ) {}

  async execute({ userId, ratingId, scores }: CorrectRatingCommand): Promise<RatingView> {
    const at = new Date();
    const { events, append, state } = await decideAndAppend(
      this.store,
      `ratings-${userId}`,
      ratingsDecider,
      { kind: 'correct', ratingId, userId, scores, at },
      { actorUserId: userId, now: at },
    );
    // The same values it already has: nothing stored, the rating as it is.
    if (!append) return ratingViewOf(standingRating(state, ratingId)!);
    await this.readYourWrites.waitFor(append.position, { eventTypes: ['RatingCorrected'] });
    return ratingViewOf(events[0].data as RatingCorrected['data']);
  }
}

export class WithdrawRatingCommand {
  constructor(
    readonly userId: string,
    readonly ratingId: string,
  ) {}
}

/** DELETE /api/joy-ratings/:id: the person's own rating stops counting anywhere (404 for any other). */
@CommandHandler(WithdrawRatingCommand)
export class WithdrawRatingHandler implements ICommandHandler<WithdrawRatingCommand, void> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(READ_YOUR_WRITES) private readonly readYourWrites: ReadYourWrites,
  ) {}

  async execute({ userId, ratingId }: WithdrawRatingCommand): Promise<void> {
    const at = new Date();
    const { append } = await decideAndAppend(
      this.store,
      `ratings-${userId}`,
      ratingsDecider,
      { kind: 'withdraw', ratingId, userId, at },
      { actorUserId: userId, now: at },
    );
    await this.readYourWrites.waitFor(append!.position, { eventTypes: ['RatingWithdrawn'] });
  }
}

export class GetRatingsQuery {
  constructor(readonly userId: string) {}
}

@QueryHandler(GetRatingsQuery)
export class GetRatingsHandler implements IQueryHandler<GetRatingsQuery, RatingView[]> {
  constructor(@Inject(READ_MODELS) private readonly readModels: ReadModelStore) {}

  async execute({ userId }: GetRatingsQuery): Promise<RatingView[]> {
    const docs = await this.readModels.find<RatingDoc>('ratings', { userId }, { sort: { field: 'seq', direction: 'desc' } });
    // By the time each was made: an imported rating comes later in the stream than it was made (account-import.ts).
    return docs.sort(newestRatingFirst).map(ratingView);
  }
}

export class GetLatestRatingQuery {
  constructor(readonly userId: string) {}
}

@QueryHandler(GetLatestRatingQuery)
export class GetLatestRatingHandler implements IQueryHandler<GetLatestRatingQuery, RatingView | null> {
  constructor(@Inject(READ_MODELS) private readonly readModels: ReadModelStore) {}

  async execute({ userId }: GetLatestRatingQuery): Promise<RatingView | null> {
    const doc = await this.readModels.get<RatingDoc>('latest-ratings', userId);
    return doc ? ratingView(doc) : null;
  }
}
