import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Response } from 'express';
import { DomainError } from '../event-store/decider';

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
    if (body.statusCode >= 500) this.logger.error(exception instanceof Error ? exception.stack : String(exception));
    res.status(body.statusCode).json(body);
  }
}

export function toApiError(exception: unknown): ApiError {
  if (exception instanceof DomainError) return { statusCode: exception.status, message: exception.message };
  if (exception instanceof HttpException) {
    const response = exception.getResponse();
    if (typeof response === 'string') return { statusCode: exception.getStatus(), message: response };
    const r = response as { message?: string | string[]; errors?: ApiError['errors'] };
    const message = Array.isArray(r.message) ? r.message[0] : (r.message ?? exception.message);
    return { statusCode: exception.getStatus(), message, ...(r.errors ? { errors: r.errors } : {}) };
  }
  return { statusCode: 500, message: 'Internal server error' };
}
