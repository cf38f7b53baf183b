import { DomainError, type ErrorCode, type ErrorKind } from '@joy/domain';

/** What a decider's refusal must be: its kind (which decides the HTTP status), its code and, if given, its message. */
export interface Refusal {
  kind: ErrorKind;
  code: ErrorCode;
  message?: string;
}

function check(error: unknown, expected: Refusal): void {
  expect(error).toBeInstanceOf(DomainError);
  const { kind, code, message } = error as DomainError;
  expect({ kind, code, ...(expected.message !== undefined ? { message } : {}) }).toEqual(expected);
}

/** `act` throws the refusal (a test fails when it throws nothing, or anything else). */
export function expectRefusal(act: () => unknown, expected: Refusal): void {
  let thrown: unknown = undefined;
  let threw = false;
  try {
    act();
  } catch (err) {
    thrown = err;
    threw = true;
  }
  expect(threw).toBe(true);
  check(thrown, expected);
}

/** `promise` rejects with the refusal. */
export async function expectRejection(promise: Promise<unknown>, expected: Refusal): Promise<void> {
  let rejected = false;
  let reason: unknown = undefined;
  await promise.then(
    () => undefined,
    (err: unknown) => {
      rejected = true;
      reason = err;
    },
  );
  expect(rejected).toBe(true);
  check(reason, expected);
}
