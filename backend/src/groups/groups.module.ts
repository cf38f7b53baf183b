import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { PremiumModule } from '../billing/premium';
import { GroupsController } from './groups.controller';
import { generateInviteCode } from './groups.decider';
import { CreateGroupHandler, JoinGroupHandler, LeaveGroupHandler, OwnerActionHandler } from './groups.handlers';
import { GetGroupHandler, GetGroupMembersHandler, GetGroupRatingsHandler, GetMyGroupsHandler, GetMyRemovalsHandler } from './groups.queries';
import { INVITE_CODE_GENERATOR } from './invite-codes';

@Module({
  imports: [CqrsModule, PremiumModule],
  controllers: [GroupsController],
  providers: [
    { provide: INVITE_CODE_GENERATOR, useValue: generateInviteCode },
    CreateGroupHandler,
    JoinGroupHandler,
    LeaveGroupHandler,
    OwnerActionHandler,
    GetMyGroupsHandler,
    GetMyRemovalsHandler,
    GetGroupHandler,
    GetGroupMembersHandler,
    GetGroupRatingsHandler,
  ],
})
export class GroupsModule {}
