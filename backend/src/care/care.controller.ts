import { Body, Controller, Get, Headers, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { CurrentUser, SignedInGuard } from '../identity/signed-in.guard';
import type { SessionUser } from '../identity/signed-in.guard';
import { SendCareActionDto } from './care.dto';
import { GetCareReceivedQuery, GetCareSentQuery, GetCareSuggestionsQuery, SendCareActionCommand, ThankCareActionCommand } from './care.handlers';
import type { CareActionView, CareSuggestionView, ReceivedCareActionView, SentCareActionView } from '@joy/domain';
import { NoBodyDto } from '../http/no-body.dto';
import { idempotencyKey } from '../http/idempotency-key';

/** Care actions (Joy Premium): send to a member of a shared group; lists of care received and sent. */
@Controller('care-actions')
@UseGuards(SignedInGuard)
export class CareActionsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  /**
   * Sends a care action: 201 with it. 403 for a free sender, 404 "Group not found" for a group the sender is
   * not in, 400 for oneself, a recipient outside the group, a bad kind or a message over 500 characters. With an
   * `Idempotency-Key` header, the same key answers the same care action and sends it once (409 for another send).
   */
  @Post()
  @HttpCode(201)
  send(@CurrentUser() user: SessionUser, @Body() body: SendCareActionDto, @Headers('idempotency-key') key?: string): Promise<CareActionView> {
    return this.commands.execute(new SendCareActionCommand(user.id, body.groupId, body.recipientId, body.kind, body.message, idempotencyKey(key)));
  }

  /**
   * The recipient thanks the sender: 200 with the care action as the recipient's list shows it. 404 "Care action
   * not found" for anyone else's (the sender's own included) or none; 409 `care.already_thanked` the second time.
   */
  @Post(':id/thank')
  @HttpCode(200)
  thank(@CurrentUser() user: SessionUser, @Param('id') id: string, @Body() _body: NoBodyDto): Promise<ReceivedCareActionView> {
    return this.commands.execute(new ThankCareActionCommand(user.id, id));
  }

  @Get('received')
  received(@CurrentUser() user: SessionUser): Promise<ReceivedCareActionView[]> {
    return this.queries.execute(new GetCareReceivedQuery(user.id));
  }

  @Get('sent')
  sent(@CurrentUser() user: SessionUser): Promise<SentCareActionView[]> {
    return this.queries.execute(new GetCareSentQuery(user.id));
  }
}

/** A group's care suggestions, on the group's path: members only (404 "Group not found" to anyone else). */
@Controller('groups')
@UseGuards(SignedInGuard)
export class CareSuggestionsController {
  constructor(private readonly queries: QueryBus) {}

  @Get(':id/care-suggestions')
  suggestions(@CurrentUser() user: SessionUser, @Param('id') id: string): Promise<CareSuggestionView[]> {
    return this.queries.execute(new GetCareSuggestionsQuery(user.id, id));
  }
}
