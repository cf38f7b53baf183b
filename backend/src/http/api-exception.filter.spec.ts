import { DomainError, ERROR_CODES, type ErrorCode } from '@joy/domain';
import { BadRequestException, NotFoundException } from '@nestjs/common';
import { MongoNetworkError } from 'mongodb';
import { EventStoreUnavailableError, WrongExpectedVersionError } from '../event-store/event-store.port';
import { MongoOperationError } from '../read-models/mongo-durability';
import { STATUS_OF_KIND, toApiError } from './api-exception.filter';

describe('error answers', () => {
  it('answer a version conflict no command retried with 409 and a reason, never 500', () => {
    expect(toApiError(new WrongExpectedVersionError('ratings-1', 3, 4))).toEqual({
      statusCode: 409,
      code: 'store.conflict',
      message: 'This changed at the same moment somewhere else, so nothing was saved. Please try again.',
    });
  });

  it('answer a store that cannot take writes with 503, without its file path', () => {
    const answer = toApiError(new EventStoreUnavailableError('events.sqlite: the disk is full; free space on it and writes resume'));
    expect(answer).toEqual({ statusCode: 503, code: 'store.unavailable', message: 'Saving is unavailable right now, so nothing was saved. Please try again later.' });
  });

  // A review (11-27): MongoDB being out (an election, a restart) answered 500 "Internal server error".
  it("answer the read models' store being out with 503, without its reason", () => {
    const out = new MongoOperationError('MongoDB unavailable: reading r1 from rm_ratings failed 2 times (connect ECONNREFUSED 10.0.0.7:27017)', {
      cause: new MongoNetworkError('connect ECONNREFUSED 10.0.0.7:27017'),
    });
    expect(toApiError(out)).toEqual({ statusCode: 503, code: 'store.unavailable', message: 'Joy cannot reach its data right now. Please try again in a moment.' });
  });

  it('never echo more than a short excerpt of a long input (< 4 KB in all)', () => {
    const long = 'x'.repeat(100_000);
    const notFound = toApiError(new NotFoundException(`Cannot GET /${long}`));
    expect(notFound.message.length).toBeLessThanOrEqual(200);
    const invalid = toApiError(
      new BadRequestException({ message: long, errors: Array.from({ length: 500 }, (_, i) => ({ field: `${long}${i}`, message: long })) }),
    );
    expect(JSON.stringify(invalid).length).toBeLessThan(4096);
    expect(invalid.errors!.length).toBeGreaterThan(0);
  });

  it('map every kind of domain error to its status, keeping the code and the field errors', () => {
    expect(toApiError(new DomainError('rating.factor_out_of_range', 'joy must be a whole number from 1 to 5'))).toEqual({
      statusCode: 400,
      code: 'rating.factor_out_of_range',
      message: 'joy must be a whole number from 1 to 5',
    });
    expect(toApiError(new DomainError('plan.group_limit', 'limit')).statusCode).toBe(403);
    expect(toApiError(new DomainError('group.invite_not_found', 'nope')).statusCode).toBe(404);
    expect(toApiError(new DomainError('group.already_member', 'again')).statusCode).toBe(409);
    expect(toApiError(new DomainError('auth.unauthorized', 'Unauthorized')).statusCode).toBe(401);
    expect(toApiError(new DomainError('request.invalid', 'name is required', [{ field: 'name', message: 'name is required' }]))).toEqual({
      statusCode: 400,
      code: 'request.invalid',
      message: 'name is required',
      errors: [{ field: 'name', message: 'name is required' }],
    });
    for (const [code, kind] of Object.entries(ERROR_CODES)) {
      expect(toApiError(new DomainError(code as ErrorCode, 'x')).statusCode).toBe(STATUS_OF_KIND[kind]);
    }
  });

  it('give errors that are not ours (an unknown route) the code of their status, and a bug no details', () => {
    expect(toApiError(new NotFoundException('Cannot GET /nope'))).toEqual({ statusCode: 404, code: 'request.not_found', message: 'Cannot GET /nope' });
    expect(toApiError(new Error('secret detail'))).toEqual({ statusCode: 500, code: 'internal', message: 'Internal server error' });
  });
});
