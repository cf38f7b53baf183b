import { randomUUID } from 'node:crypto';
import { CommandContext, metadataFor } from '../event-store/decider';
import { WrongExpectedVersionError, type EventStore } from '../event-store/event-store.port';
import type { InviteCodeReserved } from './groups.decider';

/** Produces invite codes; injected so that a test can force a collision. */
export type InviteCodeGenerator = () => string;
export const INVITE_CODE_GENERATOR = 'GroupsInviteCodeGenerator';

/** How many codes to try before giving up (a collision is about 1 in 8.5e11 per existing group). */
export const INVITE_CODE_ATTEMPTS = 10;

/**
 * Reserves a code that no group has ever had, for a new group or a new code of a group: `invite-<CODE>` must not
 * exist yet ("no stream"), so the event store itself keeps two groups from sharing a code, even at the same moment,
 * and a group's old code is never handed to another group.
 */
export async function reserveInviteCode(store: EventStore, nextCode: InviteCodeGenerator, groupId: string, ctx: CommandContext): Promise<string> {
  for (let attempt = 1; attempt <= INVITE_CODE_ATTEMPTS; attempt++) {
    const code = nextCode();
    const reserved: InviteCodeReserved = { type: 'InviteCodeReserved', data: { code, groupId } };
    try {
      await store.appendToStream(`invite-${code}`, [{ type: reserved.type, data: reserved.data, metadata: metadataFor(ctx, randomUUID()) }], {
        expectedVersion: 0,
      });
      return code;
    } catch (err) {
      if (!(err instanceof WrongExpectedVersionError)) throw err;
      // Taken by another group: try another code.
    }
  }
  throw new Error(`No free invite code after ${INVITE_CODE_ATTEMPTS} attempts`);
}
