import { DomainError } from '@joy/domain';
import { CanActivate, createParamDecorator, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { KEY_STORE, type KeyStore } from './key-store';

/** No signed-in session of an existing account: 401 `auth.unauthorized`. */
export const unauthorized = () => new DomainError('auth.unauthorized', 'Unauthorized');

/** What the session knows of the signed-in user; the profile itself lives in the user-profiles read model. */
export interface SessionUser {
  id: string;
}

/**
 * Lets a request through only with a signed-in session of an account that exists; otherwise 401 Unauthorized.
 * A deleted account's key is destroyed, so every session of it ends here, whichever process or session store
 * holds it (the deletion itself also destroys the session it came from).
 */
@Injectable()
export class SignedInGuard implements CanActivate {
  constructor(@Inject(KEY_STORE) private readonly keys: KeyStore) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<Request>();
    const user = req.user as SessionUser | undefined;
    if (!user) throw unauthorized();
    if (await this.keys.isDestroyed(user.id)) {
      req.session?.destroy(() => undefined);
      throw unauthorized();
    }
    return true;
  }
}

/** The signed-in user of the request (use with SignedInGuard). */
export const CurrentUser = createParamDecorator(
  (_: unknown, context: ExecutionContext): SessionUser => context.switchToHttp().getRequest<Request>().user as SessionUser,
);
