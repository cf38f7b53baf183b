import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
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
  premiumFromReadModels,
} from './groups.handlers';

@Module({
  imports: [CqrsModule],
  controllers: [GroupsController],
  providers: [
    { provide: PREMIUM_LOOKUP, useFactory: premiumFromReadModels, inject: [READ_MODELS] },
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
