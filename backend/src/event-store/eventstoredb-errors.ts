import { status } from '@grpc/grpc-js';
import {
  ErrorType,
  isCommandError,
  StreamNotFoundError,
  WrongExpectedVersionError as EsdbWrongExpectedVersionError,
} from '@eventstore/db-client';
import { EventStoreRefusedError, EventStoreUnavailableError } from './event-store.port';

/* What the EventStoreDB client's errors mean for the adapter, and the port's errors they become. */

/**
 * The client's error type; a bare gRPC UNAVAILABLE (the client's own calls, such as asking the server for its
 * features on a new connection, throw it unwrapped) counts as the client's UNAVAILABLE.
 */
const typeOf = (err: unknown): ErrorType | null => {
  if (err instanceof Error && isCommandError(err)) return err.type;
  return err instanceof Error && (err as { code?: unknown }).code === status.UNAVAILABLE ? ErrorType.UNAVAILABLE : null;
};

export function isEsdbWrongExpectedVersion(err: unknown): err is EsdbWrongExpectedVersionError {
  return err instanceof EsdbWrongExpectedVersionError || typeOf(err) === ErrorType.WRONG_EXPECTED_VERSION;
}

export function isStreamNotFound(err: unknown): boolean {
  return err instanceof StreamNotFoundError || typeOf(err) === ErrorType.STREAM_NOT_FOUND;
}

export function isNotLeader(err: unknown): boolean {
  return typeOf(err) === ErrorType.NOT_LEADER;
}

/**
 * Whether the server refused a read of `$all` because its start is not the position of a record (EventStoreDB can
 * only start there): its "Invalid position" answer (gRPC OUT_OF_RANGE), and nothing else, so that a lost
 * connection, a deadline or a refusal is never mistaken for it (and never answered by a scan of `$all`).
 */
export function isInvalidPosition(err: unknown): boolean {
  if (!(err instanceof Error) || typeOf(err) !== ErrorType.UNKNOWN) return false;
  return (err as { code?: unknown }).code === status.OUT_OF_RANGE || /invalid position/i.test(err.message);
}

/**
 * Whether a failed call surely never reached the server: gRPC had no connection to send it on (the server down, a
 * wrong address). Anything else that went unanswered (a connection dropped mid-call, a deadline) may have been
 * carried out. Looks at the client's error, which the port's error keeps as its cause.
 */
export function neverSent(err: unknown): boolean {
  const cause = err instanceof Error && err.cause instanceof Error ? err.cause : err;
  return typeOf(cause) === ErrorType.UNAVAILABLE && /No connection established/i.test((cause as Error).message);
}

/** Whether a dropped subscription is worth resubscribing (everything but a refusal of the credentials). */
export function isRetryable(err: unknown): boolean {
  return typeOf(err) !== ErrorType.ACCESS_DENIED;
}

/**
 * The port's error for a failed call (`what` the adapter was doing): the store unreachable or too slow becomes
 * EventStoreUnavailableError (answered 503), a refusal of the credentials EventStoreRefusedError; any other error
 * is returned as it is. Their reasons are the adapter's own words (health shows them publicly): the client's
 * message, with addresses in it, stays in `cause`.
 */
export function toPortError(err: unknown, what: string): unknown {
  switch (typeOf(err)) {
    case ErrorType.UNAVAILABLE:
    case ErrorType.CANCELLED:
      return new EventStoreUnavailableError(`EventStoreDB is unreachable (${what}); check that it runs and that EVENTSTORE_URL names it`, { cause: err });
    case ErrorType.DEADLINE_EXCEEDED:
    case ErrorType.TIMEOUT:
      return new EventStoreUnavailableError(
        `EventStoreDB did not answer within the deadline (${what}); the server is overloaded or unreachable (a retried append is recognised by its event ids)`,
        { cause: err },
      );
    case ErrorType.NOT_LEADER:
      return new EventStoreUnavailableError(`EventStoreDB has no reachable leader (${what}); check the cluster`, { cause: err });
    case ErrorType.ACCESS_DENIED:
      return new EventStoreRefusedError(
        `EventStoreDB denied access (${what}): the user in EVENTSTORE_URL lacks the rights (it needs to read and write every stream and read $all); fix the credentials or the ACLs and restart`,
        { cause: err },
      );
    default:
      return err;
  }
}
