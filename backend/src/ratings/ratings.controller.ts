import { Body, Controller, Delete, Get, Headers, HttpCode, Param, Post, Put, Query, Res, UseGuards } from '@nestjs/common';
import { DomainError } from '@joy/domain';
import type { Response } from 'express';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { CurrentUser, type SessionUser, SignedInGuard } from '../identity/signed-in.guard';
import { FACTOR_NAMES, type FactorScores, isCalendarDay, type RatingCalendarView, type RatingSummaryView, type RatingView } from '@joy/domain';
import {
  CorrectRatingCommand,
  decodeCursor,
  GetLatestRatingQuery,
  GetRatingCalendarQuery,
  GetRatingsOfDayQuery,
  GetRatingsPageQuery,
  type RatingsPage,
  SubmitRatingCommand,
  WithdrawRatingCommand,
} from './ratings.handlers';
import { GetRatingSummaryQuery } from './rating-summary.handlers';
import { GetRecentRatingsQuery, RECENT_RATINGS_DEFAULT, RECENT_RATINGS_MAX } from './recent-ratings.handlers';
import { CorrectRatingDto, SubmitRatingDto } from './submit-rating.dto';
import { NoBodyDto } from '../http/no-body.dto';
import { idempotencyKey } from '../http/idempotency-key';

/** Ratings per page when a request names no limit, and the most it may name. */
export const DEFAULT_PAGE_LIMIT = 50;
export const MAX_PAGE_LIMIT = 200;

const scoresOf = (body: FactorScores): FactorScores => Object.fromEntries(FACTOR_NAMES.map((f) => [f, body[f]])) as FactorScores;

@Controller('joy-ratings')
@UseGuards(SignedInGuard)
export class RatingsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  /** With an `Idempotency-Key` header, the same key answers the same rating and stores it once. */
  @Post()
  @HttpCode(201)
  submit(@CurrentUser() user: SessionUser, @Body() body: SubmitRatingDto, @Headers('idempotency-key') key?: string): Promise<RatingView> {
    return this.commands.execute(new SubmitRatingCommand(user.id, scoresOf(body), idempotencyKey(key), { day: body.day ?? undefined, note: body.note }));
  }

  /** New values for the five factors (and the note, when sent) of one of the caller's own ratings; 404 for any other. Its day stays. */
  @Put(':id')
  correct(@CurrentUser() user: SessionUser, @Param('id') id: string, @Body() body: CorrectRatingDto): Promise<RatingView> {
    return this.commands.execute(new CorrectRatingCommand(user.id, id, scoresOf(body), body.note));
  }

  /** The rated days of a year in the caller's zone, with each day's mean score and count, and the streaks. */
  @Get('calendar')
  calendar(@CurrentUser() user: SessionUser, @Query('year') year?: string): Promise<RatingCalendarView> {
    const value = typeof year === 'string' && /^\d{4}$/.test(year) ? Number(year) : NaN;
    return this.queries.execute(new GetRatingCalendarQuery(user.id, value));
  }

  /**
   * The caller's ratings of one day (`YYYY-MM-DD`: the day each rating is for, the calendar's day), newest first,
   * with their notes: an array, empty for a day without ratings; 400 naming `day` for anything but a date from 1970 on.
   */
  @Get('days/:day')
  ofDay(@CurrentUser() user: SessionUser, @Param('day') day: string): Promise<RatingView[]> {
    if (!isCalendarDay(day)) invalidThrow('day', 'day must be a date from 1970 on, written YYYY-MM-DD');
    return this.queries.execute(new GetRatingsOfDayQuery(user.id, day));
  }

  /** Withdraws one of the caller's own ratings: it stops counting anywhere. 204; 404 for any other. */
  @Delete(':id')
  @HttpCode(204)
  async withdraw(@CurrentUser() user: SessionUser, @Param('id') id: string, @Body() _body: NoBodyDto): Promise<void> {
    await this.commands.execute(new WithdrawRatingCommand(user.id, id));
  }

  /**
   * The user's own ratings, newest first, with all five factors, one page at a time: `limit` (1–200, 50 when left
   * out) ratings after `before` (the cursor of the previous answer; the first page without it). The next page's
   * cursor comes in the headers `X-Next-Before` and `Link: <…>; rel="next"`, absent on the last page. The body is
   * the array of ratings (docs/decisions.md, "Paging the rating list"). Everything at once is the account export's.
   */
  @Get()
  async list(
    @CurrentUser() user: SessionUser,
    @Res({ passthrough: true }) res: Response,
    @Query('limit') limit?: unknown,
    @Query('before') before?: unknown,
  ): Promise<RatingView[]> {
    const size = pageLimit(limit);
    const cursor = before === undefined ? undefined : pageCursor(before);
    const page: RatingsPage = await this.queries.execute(new GetRatingsPageQuery(user.id, size, cursor));
    if (page.next) {
      res.setHeader('X-Next-Before', page.next);
      res.setHeader('Link', `</api/joy-ratings?limit=${size}&before=${page.next}>; rel="next"`);
    }
    return page.ratings;
  }

  /**
   * The ratings of the days `from` to `to` (`YYYY-MM-DD`, inclusive, by each rating's own day; either may be left
   * out) in aggregate: count, days tracked, the mean overall score and the mean of each factor. What the charts and
   * figures show, without the list (from the rating-days read model).
   */
  @Get('summary')
  summary(@CurrentUser() user: SessionUser, @Query('from') from?: unknown, @Query('to') to?: unknown): Promise<RatingSummaryView> {
    const first = dayParam('from', from);
    const last = dayParam('to', to);
    if (first !== null && last !== null && last < first) invalidThrow('to', 'to must not be before from');
    return this.queries.execute(new GetRatingSummaryQuery(user.id, first, last));
  }

  /**
   * The caller's latest ratings by the day they rate (then the time made), with their notes: `limit` of them (1 to
   * 50, 14 when absent). What the Dashboard's trend and charts and the Insights' recent figures show.
   */
  @Get('recent')
  recent(@CurrentUser() user: SessionUser, @Query('limit') limit?: unknown): Promise<RatingView[]> {
    return this.queries.execute(new GetRecentRatingsQuery(user.id, pageLimit(limit, RECENT_RATINGS_DEFAULT, RECENT_RATINGS_MAX)));
  }

  /** The newest rating, or JSON null before the first. */
  @Get('latest')
  async latest(@CurrentUser() user: SessionUser, @Res() res: Response): Promise<void> {
    // Nest would send an empty body for null; the API promises the JSON literal null.
    res.json((await this.queries.execute(new GetLatestRatingQuery(user.id))) ?? null);
  }
}

function invalid(field: string, message: string): DomainError {
  return new DomainError('request.invalid', message, [{ field, message }]);
}

/** `limit`: a whole number from 1 to `max` (`absent` when left out). */
function pageLimit(value: unknown, absent = DEFAULT_PAGE_LIMIT, max = MAX_PAGE_LIMIT): number {
  if (value === undefined) return absent;
  const n = typeof value === 'string' && /^\d{1,4}$/.test(value) ? Number(value) : NaN;
  if (n >= 1 && n <= max) return n;
  return invalidThrow('limit', `limit must be a whole number from 1 to ${max}`);
}

/** `from`/`to` of the summary: a calendar day written YYYY-MM-DD (from 1970 on), or left out (null). */
function dayParam(field: string, value: unknown): string | null {
  if (value === undefined) return null;
  return isCalendarDay(value) ? value : invalidThrow(field, `${field} must be a date from 1970 on, written YYYY-MM-DD`);
}

/** `before`: a cursor this API gave out (X-Next-Before). */
function pageCursor(value: unknown) {
  const cursor = typeof value === 'string' ? decodeCursor(value) : undefined;
  return cursor ?? invalidThrow('before', 'before must be the cursor of a previous page (its X-Next-Before header)');
}

function invalidThrow(field: string, message: string): never {
  throw invalid(field, message);
}
