import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler, IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { randomUUID } from 'node:crypto';
import { idFromKey } from '../http/idempotency-key';
import { foldGroup, groupCreatedWithKey, groupState, joinUpcast, membershipOf } from './group-streams';
import { DomainError, type GroupDetailView, type GroupMemberView, type GroupRatingView, type GroupRemovalView, type GroupView, isInLastWeek, meanScore, normalizeInviteCode } from '@joy/domain';
import { PREMIUM_LOOKUP, type PremiumLookup } from '../billing/premium';
import { CommandContext, decideAndAppend } from '../event-store/decider';
import { EVENT_STORE, type EventStore } from '../event-store/event-store.port';
import { GroupMemberStatsDoc, groupMemberStatsProjector, MemberRating, newestFirst, ratingsOfMember } from '../projections/group-stats.projector';
import { byJoinOrder, GroupDoc, groupsProjector, MembershipsDoc, membershipsProjector } from '../projections/groups.projector';
import { READ_YOUR_WRITES, type ReadYourWrites } from '../projections/read-your-writes';
import { KEY_STORE, type KeyStore } from '../identity/key-store';
import { readProfiles } from '../identity/profiles';
import { READ_MODELS, type ReadModelStore } from '../read-models/read-model-store.port';
import {
  ChangeInviteCode, DeleteGroup, GroupCreated, groupDecider, groupDetails, InviteCodeReserved, isWellFormedInviteCode, JoinGroup,
  leaveDecider, membershipDecider, MESSAGES, OwnerAction, ownerDecider, ownerOf, removedWithThisCode, RemoveMember, RenameGroup, requireOwner,
} from './groups.decider';
import { INVITE_CODE_GENERATOR, type InviteCodeGenerator, reserveInviteCode } from './invite-codes';

export const GROUP_RATINGS_LIMIT = 100;

function groupView(g: Pick<GroupDoc, 'id' | 'name' | 'description' | 'inviteCode' | 'createdAt'>): GroupView {
  return { id: g.id, name: g.name, description: g.description, inviteCode: g.inviteCode, createdAt: g.createdAt };
}

function viewOfCreated(data: GroupCreated['data']): GroupView {
  return groupView({ id: data.groupId, name: data.name, description: data.description, inviteCode: data.inviteCode, createdAt: data.createdAt });
}

// ---- commands -----------------------------------------------------------------------------------------

export class CreateGroupCommand {
  constructor(
    readonly userId: string,
    readonly name: unknown,
    readonly description: unknown,
    /** The Idempotency-Key header, checked: the same key creates one group. */
    readonly idempotencyKey?: string,
  ) {}
}

@CommandHandler(CreateGroupCommand)
export class CreateGroupHandler implements ICommandHandler<CreateGroupCommand, GroupView> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(READ_YOUR_WRITES) private readonly readYourWrites: ReadYourWrites,
    @Inject(PREMIUM_LOOKUP) private readonly isPremium: PremiumLookup,
    @Inject(INVITE_CODE_GENERATOR) private readonly nextCode: InviteCodeGenerator,
  ) {}

  async execute({ userId, name, description, idempotencyKey }: CreateGroupCommand): Promise<GroupView> {
    const at = new Date();
    const ctx: CommandContext = { actorUserId: userId, correlationId: randomUUID(), now: at };
    // With a key, the group's id is the key's: a retry finds the group the first request created.
    const groupId = idempotencyKey ? idFromKey(userId, idempotencyKey) : randomUUID();
    const details = groupDetails(name, description); // bad input: 400 before anything is appended
    const before = idempotencyKey ? await groupCreatedWithKey(this.store, groupId, userId, details, true) : null;
    if (before) return viewOfCreated(before);
    const isPremium = await this.isPremium(userId);
    const { state, deletedGroupIds } = await membershipOf(this.store, userId, isPremium);
    const join: JoinGroup = { groupId, userId, role: 'creator', isPremium, deletedGroupIds, at };

    // 1. Fail fast on the user's stream: a free user's 4th group is refused before anything is written.
    membershipDecider.decide(join, state);

    // 2. Reserve a code that no other group has: the invite stream must not exist yet.
    const inviteCode = await reserveInviteCode(this.store, this.nextCode, groupId, ctx);

    // 3. The group itself, in a new stream (the same key at the same moment: the first one's group).
    let created;
    try {
      created = await decideAndAppend(this.store, `group-${groupId}`, groupDecider, { groupId, name, description, inviteCode, createdBy: userId, at }, ctx);
    } catch (err) {
      const first = idempotencyKey && err instanceof DomainError && err.code === 'group.already_exists' ? await groupCreatedWithKey(this.store, groupId, userId, details, false) : null;
      if (first) return viewOfCreated(first);
      throw err;
    }

    // 4. The creator is the first member, decided again on the user's stream with its expected version (a
    //    concurrent join or create may have taken the last free slot meanwhile: then this group stays memberless
    //    and invisible, see groups.decider.ts).
    const joined = await decideAndAppend(this.store, `user-${userId}`, membershipDecider, join, ctx, { upcast: joinUpcast });

    await this.readYourWrites.waitFor(joined.append!.position, { eventTypes: ['GroupCreated', 'MemberJoined'] });
    return viewOfCreated(created.events[0].data as GroupCreated['data']);
  }
}

export class JoinGroupCommand {
  constructor(
    readonly userId: string,
    readonly inviteCode: string,
  ) {}
}

@CommandHandler(JoinGroupCommand)
export class JoinGroupHandler implements ICommandHandler<JoinGroupCommand, GroupView> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(READ_YOUR_WRITES) private readonly readYourWrites: ReadYourWrites,
    @Inject(PREMIUM_LOOKUP) private readonly isPremium: PremiumLookup,
    @Inject(READ_MODELS) private readonly readModels: ReadModelStore,
  ) {}

  async execute({ userId, inviteCode }: JoinGroupCommand): Promise<GroupView> {
    const code = typeof inviteCode === 'string' ? normalizeInviteCode(inviteCode) : '';
    if (code === '') throw new DomainError('group.invite_code_required', MESSAGES.inviteCodeRequired);
    if (!isWellFormedInviteCode(code)) throw new DomainError('group.invite_not_found', MESSAGES.inviteCodeNotFound);

    // The event store is the source of truth for codes: no projection lag between creating and joining.
    const reservation = (await this.store.readStream(`invite-${code}`))[0];
    const groupId = (reservation?.data as InviteCodeReserved['data'] | undefined)?.groupId;
    const groupEvents = groupId ? await this.store.readStream(`group-${groupId}`) : [];
    const group = groupEvents.find((e) => e.type === 'GroupCreated');
    // Only the group's current code opens it: not one reserved by a create or a code change that was never written,
    // not one the owner replaced since, not one of a group its owner deleted.
    const current = foldGroup(groupEvents);
    if (!groupId || !group || current.deleted) throw new DomainError('group.invite_not_found', MESSAGES.inviteCodeNotFound);
    // Its last member left: the group is gone, and so is its code.
    const members = (await this.readModels.get<GroupDoc>(groupsProjector.collection, groupId))?.members ?? [];
    if (members.length === 0) throw new DomainError('group.invite_not_found', MESSAGES.inviteCodeNotFound);
    if (current.inviteCode !== code) {
      // Someone given a code the owner has since replaced learns why it stopped working; a code reserved by a change
      // that was never written was never the group's.
      const wasTheGroups = groupEvents.some((e) => (e.type === 'GroupCreated' || e.type === 'GroupInviteCodeChanged') && (e.data as { inviteCode?: string }).inviteCode === code);
      if (!wasTheGroups) throw new DomainError('group.invite_not_found', MESSAGES.inviteCodeNotFound);
      // A member with an old code is told what the current code would tell them.
      if (members.some((m) => m.userId === userId)) throw new DomainError('group.already_member', MESSAGES.alreadyMember);
      throw new DomainError('group.invite_replaced', MESSAGES.inviteCodeReplaced);
    }
    if (removedWithThisCode(current, userId, code)) throw new DomainError('group.removed_by_owner', MESSAGES.removedByOwner);

    const at = new Date();
    const isPremium = await this.isPremium(userId);
    const { deletedGroupIds } = await membershipOf(this.store, userId, isPremium);
    const { append } = await decideAndAppend(
      this.store,
      `user-${userId}`,
      membershipDecider,
      { groupId, userId, inviteCode: code, role: 'member', isPremium, deletedGroupIds, at },
      { actorUserId: userId, now: at },
      { upcast: joinUpcast },
    );
    await this.readYourWrites.waitFor(append!.position, { eventTypes: ['MemberJoined'] });
    // Deleted meanwhile (two streams, no transaction): the join counts for nothing, so it must not answer "joined".
    const now = await groupState(this.store, groupId);
    if (now.deleted) throw new DomainError('group.invite_not_found', MESSAGES.inviteCodeNotFound);
    return viewOfCreated({ ...(group.data as unknown as GroupCreated['data']), ...now.details!, inviteCode: code });
  }
}

export class LeaveGroupCommand {
  constructor(
    readonly userId: string,
    readonly groupId: string,
  ) {}
}

@CommandHandler(LeaveGroupCommand)
export class LeaveGroupHandler implements ICommandHandler<LeaveGroupCommand, void> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(READ_YOUR_WRITES) private readonly readYourWrites: ReadYourWrites,
  ) {}

  async execute({ userId, groupId }: LeaveGroupCommand): Promise<void> {
    // Its owner deleted it: gone for its members too, so leaving answers 404 as every other route of it does.
    if ((await groupState(this.store, groupId)).deleted) throw new DomainError('group.not_found', MESSAGES.groupNotFound);
    const at = new Date();
    const { append } = await decideAndAppend(this.store, `user-${userId}`, leaveDecider, { groupId, userId, at }, { actorUserId: userId, now: at }, { upcast: joinUpcast });
    await this.readYourWrites.waitFor(append!.position, { eventTypes: ['MemberLeft'] });
  }
}

/** Rename, remove a member, a new invite code, delete: the owner's actions, decided on the group's stream (ownerDecider). */
type Decided = 'membersInJoinOrder' | 'at';
/** What the owner asks; the handler adds the members and the time (and reserves the new invite code). */
export type OwnerRequest =
  | Omit<RenameGroup, Decided>
  | Omit<RemoveMember, Decided>
  | Omit<ChangeInviteCode, Decided | 'inviteCode'>
  | Omit<DeleteGroup, Decided>;

export class OwnerActionCommand {
  constructor(readonly action: OwnerRequest) {}
}

@CommandHandler(OwnerActionCommand)
export class OwnerActionHandler implements ICommandHandler<OwnerActionCommand, GroupView | void> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(READ_YOUR_WRITES) private readonly readYourWrites: ReadYourWrites,
    @Inject(READ_MODELS) private readonly readModels: ReadModelStore,
    @Inject(INVITE_CODE_GENERATOR) private readonly nextCode: InviteCodeGenerator,
  ) {}

  async execute({ action }: OwnerActionCommand): Promise<GroupView | void> {
    const at = new Date();
    const ctx: CommandContext = { actorUserId: action.actorId, correlationId: randomUUID(), now: at };
    const doc = await this.readModels.get<GroupDoc>(groupsProjector.collection, action.groupId);
    const membersInJoinOrder = doc ? membersOf(doc).map((m) => m.userId) : [];
    const command = { ...action, membersInJoinOrder, at } as OwnerAction;
    if (command.kind === 'changeInviteCode') {
      // The owner first, so that nobody else reserves codes; a code reserved for a change that then fails (the group
      // deleted meanwhile) opens nothing, as the join checks the code the group's stream names.
      requireOwner(command, await groupState(this.store, command.groupId));
      command.inviteCode = await reserveInviteCode(this.store, this.nextCode, command.groupId, ctx);
    }
    const decided = await decideAndAppend(this.store, `group-${action.groupId}`, ownerDecider, command, ctx);
    let position = decided.append?.position;
    // Only the projections of what was written: another's sees this position at the next watermark (400 ms).
    const written = decided.events.map((e) => e.type as string);
    if (command.kind === 'remove') {
      // The removed person's own stream records it, which frees their place and updates the read models. A retry
      // after a crash between the two appends decides the removal again and completes it here.
      try {
        const left = await decideAndAppend(this.store, `user-${command.userId}`, leaveDecider, { groupId: command.groupId, userId: command.userId, reason: 'removed', at }, ctx, { upcast: joinUpcast });
        position = left.append?.position ?? position;
        written.push(...left.events.map((e) => e.type));
      } catch (err) {
        if (!(err instanceof DomainError && err.code === 'group.not_found')) throw err; // they left meanwhile
      }
    }
    if (position !== undefined) await this.readYourWrites.waitFor(position, { eventTypes: written });
    if (command.kind === 'rename' || command.kind === 'changeInviteCode') {
      const { details, inviteCode } = decided.events.reduce(ownerDecider.evolve, decided.state);
      return groupView({ ...doc!, ...details!, inviteCode: inviteCode! });
    }
  }
}

// ---- queries ------------------------------------------------------------------------------------------

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
function membersOf(group: GroupDoc): GroupDoc['members'] {
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
    return (memberships?.removedFrom ?? [])
      .filter((r) => Date.parse(r.removedAt) >= since)
      .reverse()
      .map(({ groupId, groupName, removedAt }) => ({ groupId, groupName, removedAt }));
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
