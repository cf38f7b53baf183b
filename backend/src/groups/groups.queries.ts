import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { DomainError, type GroupDetailView, type GroupMemberView, type GroupRatingView, type GroupRemovalView, type GroupView, isInLastWeek, meanScore } from '@joy/domain';
import { GroupMemberStatsDoc, groupMemberStatsProjector, MemberRating, newestFirst, ratingsOfMember } from '../projections/group-stats.projector';
import { byJoinOrder, GroupDoc, groupsProjector, MembershipsDoc, membershipsProjector } from '../projections/groups.projector';
import { KEY_STORE, type KeyStore } from '../identity/key-store';
import { readProfiles } from '../identity/profiles';
import { READ_MODELS, type ReadModelStore } from '../read-models/read-model-store.port';
import { MESSAGES, ownerOf } from './groups.decider';

/* The group queries, from the read models (the commands: groups.handlers.ts). */

export const GROUP_RATINGS_LIMIT = 100;

export function groupView(g: Pick<GroupDoc, 'id' | 'name' | 'description' | 'inviteCode' | 'createdAt'>): GroupView {
  return { id: g.id, name: g.name, description: g.description, inviteCode: g.inviteCode, createdAt: g.createdAt };
}

/** The group, if the user is one of its members; otherwise the same 404 whether it exists or not. */
async function groupOfMember(readModels: ReadModelStore, userId: string, groupId: string): Promise<GroupDoc> {
  const group = await readModels.get<GroupDoc>(groupsProjector.collection, groupId);
  if (!group || !group.members.some((m) => m.userId === userId)) throw new DomainError('group.not_found', MESSAGES.groupNotFound);
  return group;
}

/**
 * The group's members in the order they are listed: the creator first, then by join time (`byJoinOrder`). The
 * projector keeps them so; sorting again here also orders documents projected by an older version (by position).
 */
export function membersOf(group: GroupDoc): GroupDoc['members'] {
  return [...group.members].sort(byJoinOrder);
}

/**
 * The group's activity as one member may see it (PRODUCT.md: "a member sees group activity from the moment they
 * joined"): the current members' ratings made since the viewer joined and since their rater joined, so that joining
 * a group shows nobody the newcomer's earlier days, nor the group's past to the newcomer. Latest scores and the
 * average are not activity: they stay visible as they are.
 */
function activityVisibleTo(viewerId: string, group: GroupDoc, stats: (GroupMemberStatsDoc | null)[]): MemberRating[] {
  const joinedAt = new Map(group.members.map((m) => [m.userId, Date.parse(m.joinedAt)]));
  const viewerSince = joinedAt.get(viewerId) ?? Infinity;
  return stats.flatMap((s) => (s ? ratingsOfMember(s) : [])).filter((r) => {
    const made = Date.parse(r.createdAt);
    return made >= viewerSince && made >= (joinedAt.get(r.userId) ?? Infinity);
  });
}

async function memberStats(readModels: ReadModelStore, members: GroupDoc['members']): Promise<(GroupMemberStatsDoc | null)[]> {
  return Promise.all(members.map((m) => readModels.get<GroupMemberStatsDoc>(groupMemberStatsProjector.collection, m.userId)));
}

export class GetMyGroupsQuery {
  constructor(readonly userId: string) {}
}

/** The user's groups, newest membership first (the group just created or joined comes first). */
@QueryHandler(GetMyGroupsQuery)
export class GetMyGroupsHandler implements IQueryHandler<GetMyGroupsQuery, GroupView[]> {
  constructor(@Inject(READ_MODELS) private readonly readModels: ReadModelStore) {}

  async execute({ userId }: GetMyGroupsQuery): Promise<GroupView[]> {
    const memberships = await this.readModels.get<MembershipsDoc>(membershipsProjector.collection, userId);
    // The document lists them in the order of the user's stream (joins are appended to `user-<id>`), which the
    // EventStoreDB migration's copies keep, whereas their positions (`seq`) change when a rebuild after a scavenge
    // sees the copies (docs/decisions.md): newest first is that order reversed.
    const latestJoinsFirst = [...(memberships?.groups ?? [])].reverse();
    const groups = await Promise.all(latestJoinsFirst.map((m) => this.readModels.get<GroupDoc>(groupsProjector.collection, m.groupId)));
    return groups.filter((g): g is NonNullable<typeof g> => g !== null).map(groupView);
  }
}

export class GetMyRemovalsQuery {
  constructor(
    readonly userId: string,
    readonly now = new Date(),
  ) {}
}

/** How long a removal is told on the removed person's Groups page. */
const REMOVAL_NOTICE_MS = 30 * 24 * 60 * 60 * 1000;

/** The groups whose owner removed the user in the last 30 days, newest first (their Groups page says so). */
@QueryHandler(GetMyRemovalsQuery)
export class GetMyRemovalsHandler implements IQueryHandler<GetMyRemovalsQuery, GroupRemovalView[]> {
  constructor(@Inject(READ_MODELS) private readonly readModels: ReadModelStore) {}

  async execute({ userId, now }: GetMyRemovalsQuery): Promise<GroupRemovalView[]> {
    const memberships = await this.readModels.get<MembershipsDoc>(membershipsProjector.collection, userId);
    const since = now.getTime() - REMOVAL_NOTICE_MS;
    const told = (memberships?.removedFrom ?? []).filter((r) => Date.parse(r.removedAt) >= since).reverse();
    // A group deleted since (or left by its last member) cannot be joined again: the notice says so instead.
    const groups = await Promise.all(told.map((r) => this.readModels.get<GroupDoc>(groupsProjector.collection, r.groupId)));
    return told.map(({ groupId, groupName, removedAt }, i) => ({ groupId, groupName, removedAt, groupDeleted: !groups[i]?.members.length }));
  }
}

export class GetGroupQuery {
  constructor(
    readonly userId: string,
    readonly groupId: string,
    readonly now = new Date(),
  ) {}
}

@QueryHandler(GetGroupQuery)
export class GetGroupHandler implements IQueryHandler<GetGroupQuery, GroupDetailView> {
  constructor(@Inject(READ_MODELS) private readonly readModels: ReadModelStore) {}

  async execute({ userId, groupId, now }: GetGroupQuery): Promise<GroupDetailView> {
    const group = await groupOfMember(this.readModels, userId, groupId);
    const stats = await memberStats(this.readModels, group.members);
    // Time-dependent figures are computed now. Active: rated this week, whatever day the rating was for.
    const recent = (r: { createdAt: string }) => isInLastWeek(r.createdAt, now, 'UTC');
    const latest = stats.flatMap((s) => (s?.latest ? [s.latest] : []));
    return {
      ...groupView(group),
      memberCount: group.members.length,
      activeThisWeek: stats.filter((s) => s?.recent.some(recent)).length,
      averageScore: meanScore(latest.map((r) => r.overallScore)) ?? 0,
      recentRatingsCount: activityVisibleTo(userId, group, stats).filter(recent).length,
      ownerId: ownerOf(membersOf(group).map((m) => m.userId)),
    };
  }
}

export class GetGroupMembersQuery {
  constructor(
    readonly userId: string,
    readonly groupId: string,
  ) {}
}

/** The members in the order they joined (the creator first), each with the latest overall score. */
@QueryHandler(GetGroupMembersQuery)
export class GetGroupMembersHandler implements IQueryHandler<GetGroupMembersQuery, GroupMemberView[]> {
  constructor(
    @Inject(READ_MODELS) private readonly readModels: ReadModelStore,
    @Inject(KEY_STORE) private readonly keys: KeyStore,
  ) {}

  async execute({ userId, groupId }: GetGroupMembersQuery): Promise<GroupMemberView[]> {
    const members = membersOf(await groupOfMember(this.readModels, userId, groupId));
    const stats = await memberStats(this.readModels, members);
    const profiles = await readProfiles(this.readModels, this.keys, members.map((m) => m.userId));
    const owner = ownerOf(members.map((m) => m.userId));
    return members.map((m, i) => ({
      isOwner: m.userId === owner,
      id: m.userId,
      firstName: profiles.get(m.userId)?.firstName ?? null,
      email: profiles.get(m.userId)?.email ?? null,
      profileImageUrl: profiles.get(m.userId)?.profileImageUrl ?? null,
      latestScore: stats[i]?.latest?.overallScore ?? null,
    }));
  }
}

export class GetGroupRatingsQuery {
  constructor(
    readonly userId: string,
    readonly groupId: string,
  ) {}
}

/** The group's activity the member may see (activityVisibleTo), newest first, at most 100, overall score only. */
@QueryHandler(GetGroupRatingsQuery)
export class GetGroupRatingsHandler implements IQueryHandler<GetGroupRatingsQuery, GroupRatingView[]> {
  constructor(@Inject(READ_MODELS) private readonly readModels: ReadModelStore) {}

  async execute({ userId, groupId }: GetGroupRatingsQuery): Promise<GroupRatingView[]> {
    const group = await groupOfMember(this.readModels, userId, groupId);
    const stats = await memberStats(this.readModels, group.members);
    return activityVisibleTo(userId, group, stats)
      .sort(newestFirst)
      .slice(0, GROUP_RATINGS_LIMIT)
      .map(({ id, userId: rater, overallScore, createdAt, day }) => ({ id, userId: rater, overallScore, createdAt, ...(day ? { day } : {}) }));
  }
}
