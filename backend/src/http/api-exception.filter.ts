import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Response } from 'express';
import { DomainError } from '../event-store/decider';
import { EventStoreUnavailableError, WrongExpectedVersionError } from '../event-store/event-store.port';

export interface ApiError {
  statusCode: number;
  message: string;
  errors?: { field: string; message: string }[];
}

/** Every API error leaves as JSON `{ statusCode, message, errors? }`; unexpected ones are logged, never shown. */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Api');

  catch(exception: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    const body = toApiError(exception);
    if (exception instanceof EventStoreUnavailableError) this.logger.error(`Cannot store events: ${exception.reason}`);
    else if (body.statusCode >= 500) this.logger.error(exception instanceof Error ? exception.stack : String(exception));
    if (body.statusCode === 503) res.setHeader('Retry-After', String(UNAVAILABLE_RETRY_AFTER_S));
    if (exception instanceof DomainError && exception.retryAfterSeconds) res.setHeader('Retry-After', String(exception.retryAfterSeconds));
    res.status(body.statusCode).json(body);
  }
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

export function toApiError(exception: unknown): ApiError {
  const { statusCode, message, errors } = classify(exception);
  return {
    statusCode,
    message: excerpt(message),
    ...(errors ? { errors: errors.slice(0, MAX_ERRORS).map((e) => ({ field: excerpt(e.field, 100), message: excerpt(e.message) })) } : {}),
  };
}

function classify(exception: unknown): ApiError {
  if (exception instanceof DomainError) return { statusCode: exception.status, message: exception.message };
  if (exception instanceof WrongExpectedVersionError) {
    // A command path without its own retry met a conflict: nothing was stored, trying again is safe.
    return { statusCode: 409, message: 'This changed at the same moment somewhere else, so nothing was saved. Please try again.' };
  }
  if (exception instanceof EventStoreUnavailableError) {
    return { statusCode: 503, message: 'Saving is unavailable right now, so nothing was saved. Please try again later.' };
  }
  if (exception instanceof HttpException) {
    const response = exception.getResponse();
    if (typeof response === 'string') return { statusCode: exception.getStatus(), message: response };
    const r = response as { message?: string | string[]; errors?: ApiError['errors'] };
    const message = Array.isArray(r.message) ? r.message[0] : (r.message ?? exception.message);
    return { statusCode: exception.getStatus(), message: String(message), ...(r.errors ? { errors: r.errors } : {}) };
  }
  return { statusCode: 500, message: 'Internal server error' };
}
