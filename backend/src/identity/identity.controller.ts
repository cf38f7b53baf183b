import { Controller, Get, Inject, Next, Req, Res, UseGuards } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { READ_MODELS, type ReadModelStore } from '../read-models/read-model-store.port';
import { KEY_STORE, type KeyStore } from './key-store';
import { readProfile } from './profiles';
import { SESSION_COOKIE } from './session';
import { CurrentUser, type SessionUser, SignedInGuard, unauthorized } from './signed-in.guard';
import { SignInService } from './sign-in.service';

@Controller()
export class IdentityController {
  constructor(
    private readonly signIn: SignInService,
    @Inject(READ_MODELS) private readonly readModels: ReadModelStore,
    @Inject(KEY_STORE) private readonly keys: KeyStore,
  ) {}

  /** Full-page navigation: starts the OpenID Connect flow. */
  @Get('login')
  login(@Req() req: Request, @Res() res: Response, @Next() next: NextFunction) {
    return this.signIn.login(req, res, next);
  }

  @Get('callback')
  callback(@Req() req: Request, @Res() res: Response, @Next() next: NextFunction) {
    return this.signIn.callback(req, res, next);
  }

  /** Full-page navigation: ends the session and returns to the landing page. */
  @Get('logout')
  logout(@Req() req: Request, @Res() res: Response) {
    req.logout(() => {
      req.session.destroy(() => {
        res.clearCookie(SESSION_COOKIE, { path: '/' });
        res.redirect('/');
      });
    });
  }

  @Get('auth/user')
  @UseGuards(SignedInGuard)
  async user(@CurrentUser() user: SessionUser) {
    const profile = await readProfile(this.readModels, this.keys, user.id);
    if (!profile) throw unauthorized();
    return profile;
  }
}
