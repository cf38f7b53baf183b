import { CanActivate, createParamDecorator, ExecutionContext, Injectable, UnauthorizedException } from '@nestjs/common';
import type { Request } from 'express';

/** What the session knows of the signed-in user; the profile itself lives in the user-profiles read model. */
export interface SessionUser {
  id: string;
}

/** Lets a request through only with a signed-in session; otherwise 401 Unauthorized. */
@Injectable()
export class SignedInGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<Request>();
    if (!req.user) throw new UnauthorizedException('Unauthorized');
    return true;
  }
}

/** The signed-in user of the request (use with SignedInGuard). */
export const CurrentUser = createParamDecorator(
  (_: unknown, context: ExecutionContext): SessionUser => context.switchToHttp().getRequest<Request>().user as SessionUser,
);
