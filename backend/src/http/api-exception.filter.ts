import { type ApiError, DomainError, ERROR_CODES, LimitReachedError, type ErrorCode, type ErrorKind, type FieldError } from '@joy/domain';
import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger, NotFoundException } from '@nestjs/common';
import type { Request, Response } from 'express';
import { EventStoreOutcomeUnknownError, EventStoreUnavailableError, UnreadableEventError, WrongExpectedVersionError } from '../event-store/event-store.port';
import { isStoreOutage } from '../projections/pipeline/outage';

/** Every API error leaves as JSON `{ statusCode, code, message, errors? }`; unexpected ones are logged, never shown. */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Api');

  /** `methodsOf`: the methods the app's routes take on a path (none: no route there), for a 405 rather than a 404. */
  constructor(private readonly methodsOf: (path: string) => string[] = () => []) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    const req = host.switchToHttp().getRequest<Request>();
    const allowed = isUnknownRoute(exception, req) ? this.methodsOf(req.path) : [];
    if (allowed.length > 0) {
      res.setHeader('Allow', allowed.join(', '));
      res.status(405).json(apiError('request.method_not_allowed', `${req.method} is not allowed on ${excerpt(req.path, 100)}: it takes ${allowed.join(', ')}`));
      return;
    }
    const body = toApiError(exception);
    if (exception instanceof EventStoreUnavailableError) this.logger.error(`Cannot store events: ${exception.reason}`);
    else if (exception instanceof UnreadableEventError) this.logger.error(exception.message);
    else if (body.code === 'store.unavailable') this.logger.warn(`Store unavailable: ${(exception as Error).message}`);
    else if (body.statusCode >= 500) this.logger.error(exception instanceof Error ? exception.stack : String(exception));
    if (body.statusCode === 503) res.setHeader('Retry-After', String(UNAVAILABLE_RETRY_AFTER_S));
    if (exception instanceof LimitReachedError) res.setHeader('Retry-After', String(exception.retryAfterSeconds));
    res.status(body.statusCode).json(body);
  }
}

/** Nest's answer for a request no route took: a NotFoundException "Cannot <METHOD> <url>". */
function isUnknownRoute(exception: unknown, req: Request): boolean {
  return exception instanceof NotFoundException && exception.message === `Cannot ${req.method} ${req.originalUrl}`;
}

/** Seconds a client is asked to wait when the event store cannot take writes. */
export const UNAVAILABLE_RETRY_AFTER_S = 30;
/** An error answer quotes at most this much of any text (a path, a field), and lists at most MAX_ERRORS fields. */
const MAX_TEXT = 200;
const MAX_ERRORS = 10;

/** At most MAX_TEXT characters of `text`, marked when cut: error answers never echo a large input back. */
export function excerpt(text: string, max = MAX_TEXT): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** The one mapping from an error's kind to its HTTP status. */
export const STATUS_OF_KIND: Record<ErrorKind, number> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  too_large: 413,
  unsupported_media: 415,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
};

/** The answer for a code: its status (by kind), the code, the message and field errors cut to size. */
export function apiError(code: ErrorCode, message: string, errors?: FieldError[]): ApiError {
  return {
    statusCode: STATUS_OF_KIND[ERROR_CODES[code]],
    code,
    message: excerpt(message),
    ...(errors ? { errors: errors.slice(0, MAX_ERRORS).map((e) => ({ field: excerpt(e.field, 100), message: excerpt(e.message) })) } : {}),
  };
}

/** For the Express middleware in front of Nest (body parsing, CSRF defence, rate limits, sign-in). */
export function sendApiError(res: Response, code: ErrorCode, message: string, errors?: FieldError[]): void {
  const body = apiError(code, message, errors);
  res.status(body.statusCode).json(body);
}

/** Errors that are not ours (Nest's own, e.g. an unknown route) get the code of their status. */
const CODE_OF_STATUS: Record<number, ErrorCode> = {
  400: 'request.invalid',
  401: 'auth.unauthorized',
  403: 'request.cross_origin',
  404: 'request.not_found',
  413: 'request.too_large',
  415: 'request.not_json',
  429: 'request.rate_limited',
  503: 'store.unavailable',
};

export function codeOfStatus(status: number): ErrorCode {
  return CODE_OF_STATUS[status] ?? (status < 500 ? 'request.invalid' : 'internal');
}

/** Express's refusal of a path parameter it cannot decode (a lone or badly written %). */
const UNDECODABLE_PARAM = /^Failed to decode param '([^]*)'$/;

export function toApiError(exception: unknown): ApiError {
  const undecodable = exception instanceof Error ? UNDECODABLE_PARAM.exec(exception.message) : null;
  if (undecodable) {
    return apiError('request.invalid', `The address holds "${excerpt(undecodable[1], 100)}", which is not valid %-encoding: a % in a path is written %25`);
  }
  if (exception instanceof DomainError) return apiError(exception.code, exception.message, exception.errors);
  if (exception instanceof WrongExpectedVersionError) {
    // A command path without its own retry met a conflict: nothing was stored, trying again is safe.
    return apiError('store.conflict', 'This changed at the same moment somewhere else, so nothing was saved. Please try again.');
  }
  if (exception instanceof EventStoreOutcomeUnknownError) {
    // Sent, never answered: it may be stored, and a new try (a new id) could store it twice.
    return apiError('store.outcome_unknown', 'Joy could not confirm that this was saved. Please check before trying again.');
  }
  if (exception instanceof EventStoreUnavailableError) {
    return apiError('store.unavailable', 'Saving is unavailable right now, so nothing was saved. Please try again later.');
  }
  if (exception instanceof UnreadableEventError) {
    // A damaged event (or page) of the store: the log names it and the repair; the person is told it is not them.
    return apiError('store.unavailable', 'Joy cannot read part of its data right now, so nothing was changed. Please try again later.');
  }
  if (isStoreOutage(exception)) {
    // The read models' store is out for a moment (MongoDB restarting or electing a primary): no 500, a retry later.
    return apiError('store.unavailable', 'Joy cannot reach its data right now. Please try again in a moment.');
  }
  if (exception instanceof HttpException) {
    const response = exception.getResponse();
    const r = (typeof response === 'string' ? { message: response } : response) as { message?: string | string[]; errors?: FieldError[] };
    const message = Array.isArray(r.message) ? r.message[0] : (r.message ?? exception.message);
    return { ...apiError(codeOfStatus(exception.getStatus()), String(message), r.errors), statusCode: exception.getStatus() };
  }
  return apiError('internal', 'Internal server error');
}
