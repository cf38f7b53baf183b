import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler, IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { randomUUID } from 'node:crypto';
import { DomainError, type GroupDetailView, type GroupMemberView, type GroupRatingView, type GroupView, isInLastWeek, meanScore } from '@joy/domain';
import { PREMIUM_LOOKUP, type PremiumLookup } from '../billing/premium';
import { CommandContext, decideAndAppend, metadataFor } from '../event-store/decider';
import { EVENT_STORE, WrongExpectedVersionError } from '../event-store/event-store.port';
import type { EventStore, RecordedEvent } from '../event-store/event-store.port';
import { GroupMemberStatsDoc, groupMemberStatsProjector, MemberRating, newestFirst } from '../projections/group-stats.projector';
import { byJoinOrder, GroupDoc, groupsProjector, MembershipsDoc, membershipsProjector } from '../projections/groups.projector';
import { READ_YOUR_WRITES, type ReadYourWrites } from '../projections/read-your-writes';
import { KEY_STORE, type KeyStore } from '../identity/key-store';
import { readProfiles } from '../identity/profiles';
import { READ_MODELS } from '../read-models/read-model-store.port';
import type { ReadModelStore } from '../read-models/read-model-store.port';
import {
  GroupCreated,
  groupDecider,
  groupDetails,
  InviteCodeReserved,
  isWellFormedInviteCode,
  JoinGroup,
  leaveDecider,
  membershipDecider,
  MESSAGES,
  normalizeInviteCode,
} from './groups.decider';

// ---- ports of this feature ----------------------------------------------------------------------------

/** Produces invite codes; injected so that a test can force a collision. */
export type InviteCodeGenerator = () => string;
export const INVITE_CODE_GENERATOR = 'GroupsInviteCodeGenerator';

/** How many codes to try before giving up (a collision is about 1 in 8.5e11 per existing group). */
export const INVITE_CODE_ATTEMPTS = 10;

export const GROUP_RATINGS_LIMIT = 100;

function groupView(g: Pick<GroupDoc, 'id' | 'name' | 'description' | 'inviteCode' | 'createdAt'>): GroupView {
  return { id: g.id, name: g.name, description: g.description, inviteCode: g.inviteCode, createdAt: g.createdAt };
}

function viewOfCreated(data: GroupCreated['data']): GroupView {
  return groupView({ id: data.groupId, name: data.name, description: data.description, inviteCode: data.inviteCode, createdAt: data.createdAt });
}

// ---- commands -----------------------------------------------------------------------------------------

/** The user's stream holds identity events too; membershipDecider.evolve folds only memberships and the deletion. */
const joinUpcast = (e: RecordedEvent) => ({ type: e.type, data: e.data }) as unknown as Parameters<typeof membershipDecider.evolve>[1];

export class CreateGroupCommand {
  constructor(
    readonly userId: string,
    readonly name: unknown,
    readonly description: unknown,
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

  async execute({ userId, name, description }: CreateGroupCommand): Promise<GroupView> {
    const at = new Date();
    const ctx: CommandContext = { actorUserId: userId, correlationId: randomUUID(), now: at };
    const groupId = randomUUID();
    groupDetails(name, description); // bad input: 400 before anything is appended
    const join: JoinGroup = { groupId, userId, role: 'creator', isPremium: await this.isPremium(userId), at };

    // 1. Fail fast on the user's stream: a free user's 4th group is refused before anything is written.
    const userStream = await this.store.readStream(`user-${userId}`);
    membershipDecider.decide(join, userStream.map(joinUpcast).reduce(membershipDecider.evolve, membershipDecider.initialState));

    // 2. Reserve a code that no other group has: the invite stream must not exist yet.
    const inviteCode = await this.reserveInviteCode(groupId, ctx);

    // 3. The group itself, in a new stream.
    const created = await decideAndAppend(
      this.store,
      `group-${groupId}`,
      groupDecider,
      { groupId, name, description, inviteCode, createdBy: userId, at },
      ctx,
    );

    // 4. The creator is the first member, decided again on the user's stream with its expected version (a
    //    concurrent join or create may have taken the last free slot meanwhile: then this group stays memberless
    //    and invisible, see groups.decider.ts).
    const joined = await decideAndAppend(this.store, `user-${userId}`, membershipDecider, join, ctx, { upcast: joinUpcast });

    await this.readYourWrites.waitFor(joined.append!.position, { eventTypes: ['GroupCreated', 'MemberJoined'] });
    return viewOfCreated(created.events[0].data);
  }

  private async reserveInviteCode(groupId: string, ctx: CommandContext): Promise<string> {
    for (let attempt = 1; attempt <= INVITE_CODE_ATTEMPTS; attempt++) {
      const code = this.nextCode();
      const reserved: InviteCodeReserved = { type: 'InviteCodeReserved', data: { code, groupId } };
      try {
        await this.store.appendToStream(
          `invite-${code}`,
          [{ type: reserved.type, data: reserved.data, metadata: metadataFor(ctx, randomUUID()) }],
          { expectedVersion: 0 },
        );
        return code;
      } catch (err) {
        if (!(err instanceof WrongExpectedVersionError)) throw err;
        // Taken by another group: try another code.
      }
    }
    throw new Error(`No free invite code after ${INVITE_CODE_ATTEMPTS} attempts`);
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
    if (typeof inviteCode !== 'string' || inviteCode.trim() === '') throw new DomainError('group.invite_code_required', MESSAGES.inviteCodeRequired);
    const code = normalizeInviteCode(inviteCode);
    if (!isWellFormedInviteCode(code)) throw new DomainError('group.invite_not_found', MESSAGES.inviteCodeNotFound);

    // The event store is the source of truth for codes: no projection lag between creating and joining.
    const reservation = (await this.store.readStream(`invite-${code}`))[0];
    const groupId = (reservation?.data as InviteCodeReserved['data'] | undefined)?.groupId;
    // A code reserved by a create that never wrote its group is not a group's code.
    const group = groupId ? (await this.store.readStream(`group-${groupId}`)).find((e) => e.type === 'GroupCreated') : undefined;
    if (!groupId || !group) throw new DomainError('group.invite_not_found', MESSAGES.inviteCodeNotFound);
    // Its last member left: the group is gone, and so is its code.
    const members = (await this.readModels.get<GroupDoc>(groupsProjector.collection, groupId))?.members ?? [];
    if (members.length === 0) throw new DomainError('group.invite_not_found', MESSAGES.inviteCodeNotFound);

    const at = new Date();
    const { append } = await decideAndAppend(
      this.store,
      `user-${userId}`,
      membershipDecider,
      { groupId, userId, inviteCode: code, role: 'member', isPremium: await this.isPremium(userId), at },
      { actorUserId: userId, now: at },
      { upcast: joinUpcast },
    );
    await this.readYourWrites.waitFor(append!.position, { eventTypes: ['MemberJoined'] });
    return viewOfCreated(group.data as unknown as GroupCreated['data']);
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
    const at = new Date();
    const { append } = await decideAndAppend(this.store, `user-${userId}`, leaveDecider, { groupId, userId, at }, { actorUserId: userId, now: at }, { upcast: joinUpcast });
    await this.readYourWrites.waitFor(append!.position, { eventTypes: ['MemberLeft'] });
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
    const newestFirst = [...(memberships?.groups ?? [])].reverse();
    const groups = await Promise.all(newestFirst.map((m) => this.readModels.get<GroupDoc>(groupsProjector.collection, m.groupId)));
    return groups.filter((g): g is NonNullable<typeof g> => g !== null).map(groupView);
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
    // Time-dependent figures are computed now, from the timestamps in the documents.
    const recent = (r: MemberRating) => isInLastWeek(r.createdAt, now, 'UTC');
    const latest = stats.flatMap((s) => (s?.latest ? [s.latest] : []));
    return {
      ...groupView(group),
      memberCount: group.members.length,
      activeThisWeek: latest.filter(recent).length,
      averageScore: meanScore(latest.map((r) => r.overallScore)) ?? 0,
      recentRatingsCount: stats.reduce((n, s) => n + (s?.recent.filter(recent).length ?? 0), 0),
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
    return members.map((m, i) => ({
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

/** The current members' ratings (also those made before joining), newest first, at most 100, overall score only. */
@QueryHandler(GetGroupRatingsQuery)
export class GetGroupRatingsHandler implements IQueryHandler<GetGroupRatingsQuery, GroupRatingView[]> {
  constructor(@Inject(READ_MODELS) private readonly readModels: ReadModelStore) {}

  async execute({ userId, groupId }: GetGroupRatingsQuery): Promise<GroupRatingView[]> {
    const group = await groupOfMember(this.readModels, userId, groupId);
    const stats = await memberStats(this.readModels, group.members);
    return stats
      .flatMap((s) => s?.recent ?? [])
      .sort(newestFirst)
      .slice(0, GROUP_RATINGS_LIMIT)
      .map(({ id, userId: rater, overallScore, createdAt }) => ({ id, userId: rater, overallScore, createdAt }));
  }
}
