import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { randomUUID } from 'node:crypto';
import { idFromKey } from '../http/idempotency-key';
import { foldGroup, groupCreatedWithKey, groupState, joinUpcast, membershipOf } from './group-streams';
import { DomainError, type GroupView, normalizeInviteCode } from '@joy/domain';
import { PREMIUM_LOOKUP, type PremiumLookup } from '../billing/premium';
import { CommandContext, decideAndAppend } from '../event-store/decider';
import { EVENT_STORE, type EventStore } from '../event-store/event-store.port';
import { GroupDoc, groupsProjector } from '../projections/groups.projector';
import { READ_YOUR_WRITES, type ReadYourWrites } from '../projections/read-your-writes';
import { READ_MODELS, type ReadModelStore } from '../read-models/read-model-store.port';
import {
  ChangeInviteCode, DeleteGroup, GroupCreated, groupDecider, groupDetails, InviteCodeReserved, isWellFormedInviteCode, JoinGroup,
  leaveDecider, membershipDecider, MESSAGES, OwnerAction, ownerDecider, removedWithThisCode, RemoveMember, RenameGroup, requireOwner,
} from './groups.decider';
import { INVITE_CODE_GENERATOR, type InviteCodeGenerator, reserveInviteCode } from './invite-codes';
import { groupView, membersOf } from './groups.queries';

function viewOfCreated(data: GroupCreated['data']): GroupView {
  return groupView({ id: data.groupId, name: data.name, description: data.description, inviteCode: data.inviteCode, createdAt: data.createdAt });
}

/* The group commands (their queries: groups.queries.ts). */

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
    const before = idempotencyKey ? await groupCreatedWithKey(this.store, groupId, userId, details) : null;
    if (before?.creatorIn) return viewOfCreated(before.group);
    const isPremium = await this.isPremium(userId);
    const { state, deletedGroupIds } = await membershipOf(this.store, userId, isPremium);
    const join: JoinGroup = { groupId, userId, role: 'creator', isPremium, deletedGroupIds, at };
    // The key's group is written but its creator not yet in it (a request still at step 4, or one that died there):
    // this retry finishes it.
    if (before) return this.joinAsCreator(join, before.group, ctx);

    // 1. Fail fast on the user's stream: a free user's 4th group is refused before anything is written.
    membershipDecider.decide(join, state);

    // 2. Reserve a code that no other group has: the invite stream must not exist yet.
    const inviteCode = await reserveInviteCode(this.store, this.nextCode, groupId, ctx);

    // 3. The group itself, in a new stream (the same key at the same moment: the first one's group).
    let created;
    try {
      created = await decideAndAppend(this.store, `group-${groupId}`, groupDecider, { groupId, name, description, inviteCode, createdBy: userId, at }, ctx);
    } catch (err) {
      const first = idempotencyKey && err instanceof DomainError && err.code === 'group.already_exists' ? await groupCreatedWithKey(this.store, groupId, userId, details) : null;
      if (first) return first.creatorIn ? viewOfCreated(first.group) : this.joinAsCreator(join, first.group, ctx);
      throw err;
    }
    return this.joinAsCreator(join, created.events[0].data as GroupCreated['data'], ctx);
  }

  /**
   * 4. The creator is the first member, decided again on the user's stream with its expected version (a concurrent
   *    join or create may have taken the last free slot meanwhile: then this group stays memberless and invisible,
   *    see groups.decider.ts). Two requests with the same key may both get here: the second finds the creator in.
   */
  private async joinAsCreator(join: JoinGroup, group: GroupCreated['data'], ctx: CommandContext): Promise<GroupView> {
    let position: number;
    try {
      position = (await decideAndAppend(this.store, `user-${join.userId}`, membershipDecider, join, ctx, { upcast: joinUpcast })).append!.position;
    } catch (err) {
      if (!(err instanceof DomainError && err.code === 'group.already_member')) throw err;
      position = await this.store.headPosition();
    }
    await this.readYourWrites.waitFor(position, { eventTypes: ['GroupCreated', 'MemberJoined'] });
    return viewOfCreated(group);
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
