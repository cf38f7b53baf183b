import { Controller, Get, UseGuards } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { CurrentUser, SignedInGuard } from '../identity/signed-in.guard';
import type { SessionUser } from '../identity/signed-in.guard';
import type { AdvancedInsights } from '@joy/domain';
import { GetAdvancedInsightsQuery } from './insights.handlers';

@Controller('insights')
@UseGuards(SignedInGuard)
export class InsightsController {
  constructor(private readonly queries: QueryBus) {}

  /** Joy Premium's advanced analytics; 403 with the upgrade message on the free plan. */
  @Get('advanced')
  advanced(@CurrentUser() user: SessionUser): Promise<AdvancedInsights> {
    return this.queries.execute(new GetAdvancedInsightsQuery(user.id));
  }
}
