import { BadRequestException, NotFoundException } from '@nestjs/common';
import { EventStoreUnavailableError, WrongExpectedVersionError } from '../event-store/event-store.port';
import { toApiError } from './api-exception.filter';

describe('error answers', () => {
  it('answer a version conflict no command retried with 409 and a reason, never 500', () => {
    expect(toApiError(new WrongExpectedVersionError('ratings-1', 3, 4))).toEqual({
      statusCode: 409,
      message: 'This changed at the same moment somewhere else, so nothing was saved. Please try again.',
    });
  });

  it('answer a store that cannot take writes with 503, without its file path', () => {
    const answer = toApiError(new EventStoreUnavailableError('events.sqlite: the disk is full; free space on it and writes resume'));
    expect(answer).toEqual({ statusCode: 503, message: 'Saving is unavailable right now, so nothing was saved. Please try again later.' });
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
});
