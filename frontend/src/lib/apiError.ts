/** API errors as the browser reads them: pure, no I/O (tested in api.test.ts and groups/logic.test.ts). */
import { ERROR_CODES, type ErrorCode, type ErrorKind, isErrorCode } from '@joy/domain';
import type { ToastInput } from './toast';

export interface ParsedApiError {
  status: number | null;
  /** The server's stable error code (@joy/domain ERROR_CODES); null when the body is not one of our answers. */
  code: ErrorCode | null;
  message: string | null;
}

/**
 * An API error ("status: body", SPEC §8) taken apart: the status, and the server's `code` and `message` from
 * its JSON answer `{ statusCode, code, message, errors? }`. Decisions are made on `code` (or its kind), never
 * on the message, which is for people and may be reworded.
 */
export function parseApiError(error: unknown): ParsedApiError {
  if (!(error instanceof Error)) return { status: null, code: null, message: null };
  const match = /^(\d{3}): ?([\s\S]*)$/.exec(error.message);
  if (!match) return { status: null, code: null, message: null };
  const status = Number(match[1]);
  const body = match[2].trim();
  try {
    const parsed = JSON.parse(body) as { code?: unknown; message?: unknown };
    const message = Array.isArray(parsed?.message) ? parsed.message[0] : parsed?.message;
    return {
      status,
      code: isErrorCode(parsed?.code) ? parsed.code : null,
      message: typeof message === 'string' && message.trim() ? message.trim() : null,
    };
  } catch {
    return { status, code: null, message: body || null };
  }
}

/** A 400's `errors` (one per field the server names, up to 10), in its order; [] for anything else. */
export function namedFieldsOf(error: unknown): { field: string; message: string }[] {
  const match = error instanceof Error ? /^\d{3}: ?([\s\S]*)$/.exec(error.message) : null;
  try {
    const errors = (JSON.parse(match?.[1] ?? '') as { errors?: unknown }).errors;
    if (!Array.isArray(errors)) return [];
    return errors.filter((e): e is { field: string; message: string } => typeof e?.field === 'string' && typeof e?.message === 'string');
  } catch {
    return [];
  }
}

/** The messages of a 400's `errors`, in its order; [] for anything else. */
export function fieldErrorsOf(error: unknown): string[] {
  return namedFieldsOf(error).map((e) => e.message);
}

/** The kind of an API error (invalid, not_found, conflict, …), from its code; null for anything else. */
export function errorKind(error: unknown): ErrorKind | null {
  const { code } = parseApiError(error);
  return code ? ERROR_CODES[code] : null;
}

/**
 * A failure toast: the spec's text always, and the server's reason after it when it is one the person can act on
 * (invalid: a bad field, not_found: an unknown code, conflict: already a member, forbidden: not the owner,
 * and for rate_limited the server's words alone: when to try again).
 */
export function withServerReason(base: ToastInput, error: unknown): ToastInput {
  const { message } = parseApiError(error);
  const kind = errorKind(error);
  if (!message) return base;
  // The spec's text stays first (SPEC §8 words each failure); the reason after it says what to do (held back: when to try again).
  if (kind !== 'invalid' && kind !== 'not_found' && kind !== 'conflict' && kind !== 'forbidden' && kind !== 'rate_limited') return base;
  return { ...base, description: `${base.description} ${asSentence(message)}` };
}

/** "name must be at most 80 characters" → "Name must be at most 80 characters." */
function asSentence(text: string): string {
  const sentence = text.charAt(0).toUpperCase() + text.slice(1);
  return /[.!?]$/.test(sentence) ? sentence : `${sentence}.`;
}
