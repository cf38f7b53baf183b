import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { PremiumModule } from '../billing/premium';
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
  LeaveGroupHandler,
  OwnerActionHandler,
} from './groups.handlers';

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
    GetGroupHandler,
    GetGroupMembersHandler,
    GetGroupRatingsHandler,
  ],
})
export class GroupsModule {}
