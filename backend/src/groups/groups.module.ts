import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { premiumFromSubscriptions } from '../billing/billing.handlers';
import { READ_MODELS } from '../read-models/read-model-store.port';
import { GroupsController } from './groups.controller';
import { generateInviteCode } from './groups.decider';
import {
  CreateGroupHandler,
  GetGroupHandler,
  GetGroupMembersHandler,
  GetGroupRatingsHandler,
  GetMyGroupsHandler,
  INVITE_CODE_GENERATOR,
  JoinGroupHandler,
  PREMIUM_LOOKUP,
} from './groups.handlers';

@Module({
  imports: [CqrsModule],
  controllers: [GroupsController],
  providers: [
    // Billing's subscriptions read model, with the paid period's end checked at the time of asking.
    { provide: PREMIUM_LOOKUP, useFactory: premiumFromSubscriptions, inject: [READ_MODELS] },
    { provide: INVITE_CODE_GENERATOR, useValue: generateInviteCode },
    CreateGroupHandler,
    JoinGroupHandler,
    GetMyGroupsHandler,
    GetGroupHandler,
    GetGroupMembersHandler,
    GetGroupRatingsHandler,
  ],
})
export class GroupsModule {}
