import { Metadata, status, type ServiceError } from '@grpc/grpc-js';

/*
 * What goes wrong on a real cluster, on demand (set `standIn.faults`; each applies to the calls that start
 * after it is set). Errors carry the status codes and the `exception` metadata EventStoreDB sends, so the
 * official client turns them into the same errors it would on a real server.
 */
export interface Faults {
  /** This node is a follower: every streams call is refused with NotLeader, naming this leader. */
  notLeader?: { host: string; port: number };
  /** The credentials lack the rights: every streams call is refused with AccessDenied. */
  accessDenied?: boolean;
  /** The node takes streams calls and never answers them (a hung process, a network black hole). */
  unresponsive?: boolean;
  /** The node fails every streams call with an internal error (a bug, a corrupt chunk). */
  internalError?: boolean;
  /**
   * Appends take this long (the server is overloaded); one whose deadline passes meanwhile is answered with
   * EventStoreDB's timeout, as the server does, and writes nothing.
   */
  appendDelayMs?: number;
  /**
   * The next this many appends are written, then their answer is lost: the call fails as a connection dropped
   * after the commit does (a leader crashing, a cut link), so the client cannot tell whether it was stored.
   */
  loseAppendAnswers?: number;
  /** A slow link: a stream read sends its events at this pace (ms per 100 events). */
  streamReadMsPer100?: number;
}

export type StandInError = Partial<ServiceError> & { code: status; details: string; metadata?: Metadata };

function withException(code: status, details: string, entries: Record<string, string>): StandInError {
  const metadata = new Metadata();
  for (const [key, value] of Object.entries(entries)) metadata.set(key, value);
  return { code, details, metadata };
}

export const errors = {
  notLeader: (leader: { host: string; port: number }) =>
    withException(status.NOT_FOUND, 'Leader info available', {
      exception: 'not-leader',
      'leader-endpoint-host': leader.host,
      'leader-endpoint-port': String(leader.port),
    }),
  accessDenied: () => withException(status.PERMISSION_DENIED, 'Access Denied', { exception: 'access-denied' }),
  /** What the server says when a read of `$all` starts inside a record. */
  invalidPosition: () => ({ code: status.OUT_OF_RANGE, details: 'Invalid position.' }) satisfies StandInError,
  /** An append whose deadline passed (unary append: the server gives up as the client does). */
  deadlineExceeded: () => ({ code: status.DEADLINE_EXCEEDED, details: 'Deadline Exceeded' }) satisfies StandInError,
  invalidArgument: (details: string) => ({ code: status.INVALID_ARGUMENT, details }) satisfies StandInError,
  /** How the client sees a connection that dropped while it waited for an answer. */
  connectionDropped: () => ({ code: status.UNAVAILABLE, details: 'Connection dropped (stand-in fault)' }) satisfies StandInError,
};

/** Whether the answer of an append just written is to be lost (the `loseAppendAnswers` fault), counting it down. */
export function loseThisAnswer(faults: Faults): boolean {
  if (!faults.loseAppendAnswers) return false;
  faults.loseAppendAnswers--;
  return true;
}

/** The fault that refuses a call outright, if any. */
export function refusal(faults: Faults): StandInError | null {
  if (faults.notLeader) return errors.notLeader(faults.notLeader);
  if (faults.accessDenied) return errors.accessDenied();
  if (faults.internalError) return { code: status.INTERNAL, details: 'Internal error (stand-in fault)' };
  return null;
}
