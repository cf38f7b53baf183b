import { Body, Controller, Get, HttpCode, Post, Res, UseGuards } from '@nestjs/common';
import type { Response } from 'express';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { CurrentUser, type SessionUser, SignedInGuard } from '../identity/signed-in.guard';
import type { RatingView } from '@joy/domain';
import { GetLatestRatingQuery, GetRatingsQuery, SubmitRatingCommand } from './ratings.handlers';
import { SubmitRatingDto } from './submit-rating.dto';

@Controller('joy-ratings')
@UseGuards(SignedInGuard)
export class RatingsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @Post()
  @HttpCode(201)
  submit(@CurrentUser() user: SessionUser, @Body() body: SubmitRatingDto): Promise<RatingView> {
    return this.commands.execute(new SubmitRatingCommand(user.id, body));
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
