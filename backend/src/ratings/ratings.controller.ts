import { Body, Controller, Delete, Get, Headers, HttpCode, Param, Post, Put, Query, Res, UseGuards } from '@nestjs/common';
import { DomainError } from '@joy/domain';
import type { Response } from 'express';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { CurrentUser, type SessionUser, SignedInGuard } from '../identity/signed-in.guard';
import { FACTOR_NAMES, type FactorScores, type RatingCalendarView, type RatingView } from '@joy/domain';
import { CorrectRatingCommand, GetLatestRatingQuery, GetRatingCalendarQuery, GetRatingsQuery, SubmitRatingCommand, WithdrawRatingCommand } from './ratings.handlers';
import { CorrectRatingDto, SubmitRatingDto } from './submit-rating.dto';

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
    return this.commands.execute(new SubmitRatingCommand(user.id, scoresOf(body), idempotencyKey(key), { day: body.day, note: body.note }));
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

  /** Withdraws one of the caller's own ratings: it stops counting anywhere. 204; 404 for any other. */
  @Delete(':id')
  @HttpCode(204)
  async withdraw(@CurrentUser() user: SessionUser, @Param('id') id: string): Promise<void> {
    await this.commands.execute(new WithdrawRatingCommand(user.id, id));
  }

  /** The user's own ratings, newest first, with all five factors. */
  @Get()
  list(@CurrentUser() user: SessionUser): Promise<RatingView[]> {
    return this.queries.execute(new GetRatingsQuery(user.id));
  }

  /** The newest rating, or JSON null before the first. */
  @Get('latest')
  async latest(@CurrentUser() user: SessionUser, @Res() res: Response): Promise<void> {
    // Nest would send an empty body for null; the API promises the JSON literal null.
    res.json((await this.queries.execute(new GetLatestRatingQuery(user.id))) ?? null);
  }
}

/** 1–255 visible ASCII characters (a UUID, as the app sends): anything else is refused naming the header. */
function idempotencyKey(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (/^[\x21-\x7e]{1,255}$/.test(value)) return value;
  const message = 'Idempotency-Key must be 1 to 255 visible ASCII characters';
  throw new DomainError('request.invalid', message, [{ field: 'Idempotency-Key', message }]);
}
