import { Body, Controller, Delete, Get, Headers, HttpCode, Param, Patch, Post, UseGuards } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { CurrentUser, SignedInGuard } from '../identity/signed-in.guard';
import type { SessionUser } from '../identity/signed-in.guard';
import { CreateGroupDto, JoinGroupDto, UpdateGroupDto } from './groups.dto';
import { idempotencyKey } from '../http/idempotency-key';
import { CreateGroupCommand, JoinGroupCommand, LeaveGroupCommand, OwnerActionCommand } from './groups.handlers';
import { GetGroupMembersQuery, GetGroupQuery, GetGroupRatingsQuery, GetMyGroupsQuery, GetMyRemovalsQuery } from './groups.queries';
import type { GroupDetailView, GroupMemberView, GroupRatingView, GroupRemovalView, GroupView } from '@joy/domain';
import { NoBodyDto } from '../http/no-body.dto';

/**
 * Groups (tribes). A group's routes answer 404 "Group not found" to anyone who is not a member; the owner's
 * (rename, remove a member, a new invite code, delete) answer 403 to the other members.
 */
@Controller('groups')
@UseGuards(SignedInGuard)
export class GroupsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  /**
   * Creates a group; the creator is its first member. With an `Idempotency-Key` header, the same key answers the
   * group it created (as it stands now) and creates it once (409 for another group).
   */
  @Post()
  @HttpCode(201)
  create(@CurrentUser() user: SessionUser, @Body() body: CreateGroupDto, @Headers('idempotency-key') key?: string): Promise<GroupView> {
    return this.commands.execute(new CreateGroupCommand(user.id, body.name, body.description, idempotencyKey(key)));
  }

  /** Joins the group of an invite code. */
  @Post('join')
  @HttpCode(200)
  join(@CurrentUser() user: SessionUser, @Body() body: JoinGroupDto): Promise<GroupView> {
    return this.commands.execute(new JoinGroupCommand(user.id, body.inviteCode));
  }

  /** Leaves the group (any member): it leaves the member's lists, and frees a place under the free plan. */
  @Post(':id/leave')
  @HttpCode(204)
  async leave(@CurrentUser() user: SessionUser, @Param('id') id: string, @Body() _body: NoBodyDto): Promise<void> {
    await this.commands.execute(new LeaveGroupCommand(user.id, id));
  }

  /** Renames the group, or changes its description (owner only). */
  @Patch(':id')
  rename(@CurrentUser() user: SessionUser, @Param('id') id: string, @Body() body: UpdateGroupDto): Promise<GroupView> {
    return this.commands.execute(new OwnerActionCommand({ kind: 'rename', groupId: id, actorId: user.id, name: body.name, description: body.description }));
  }

  /**
   * Gives the group a new invite code (owner only): the old one answers 404 at once, so people who have it (a member
   * who was removed, say) can no longer join. Answers the group as PATCH does, with the new code.
   */
  @Post(':id/invite-code')
  @HttpCode(200)
  newInviteCode(@CurrentUser() user: SessionUser, @Param('id') id: string, @Body() _body: NoBodyDto): Promise<GroupView> {
    return this.commands.execute(new OwnerActionCommand({ kind: 'changeInviteCode', groupId: id, actorId: user.id }));
  }

  /** Deletes the group (owner only): it leaves every member's list, and its invite code answers 404. */
  @Delete(':id')
  @HttpCode(204)
  async remove(@CurrentUser() user: SessionUser, @Param('id') id: string, @Body() _body: NoBodyDto): Promise<void> {
    await this.commands.execute(new OwnerActionCommand({ kind: 'delete', groupId: id, actorId: user.id }));
  }

  /** Removes a member (owner only); they can join again with the code, until the owner gives the group a new one. */
  @Delete(':id/members/:userId')
  @HttpCode(204)
  async removeMember(@CurrentUser() user: SessionUser, @Param('id') id: string, @Param('userId') userId: string, @Body() _body: NoBodyDto): Promise<void> {
    await this.commands.execute(new OwnerActionCommand({ kind: 'remove', groupId: id, actorId: user.id, userId }));
  }

  /** The user's groups, newest membership first. */
  @Get()
  list(@CurrentUser() user: SessionUser): Promise<GroupView[]> {
    return this.queries.execute(new GetMyGroupsQuery(user.id));
  }

  /** The groups whose owner removed the user in the last 30 days, newest first. Before `:id`, which would take it. */
  @Get('removals')
  removals(@CurrentUser() user: SessionUser): Promise<GroupRemovalView[]> {
    return this.queries.execute(new GetMyRemovalsQuery(user.id));
  }

  @Get(':id')
  detail(@CurrentUser() user: SessionUser, @Param('id') id: string): Promise<GroupDetailView> {
    return this.queries.execute(new GetGroupQuery(user.id, id));
  }

  @Get(':id/members')
  members(@CurrentUser() user: SessionUser, @Param('id') id: string): Promise<GroupMemberView[]> {
    return this.queries.execute(new GetGroupMembersQuery(user.id, id));
  }

  @Get(':id/ratings')
  ratings(@CurrentUser() user: SessionUser, @Param('id') id: string): Promise<GroupRatingView[]> {
    return this.queries.execute(new GetGroupRatingsQuery(user.id, id));
  }
}
