import { Inject, Injectable, Logger } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import passport from 'passport';
import { Strategy as OpenIdConnectStrategy } from 'passport-openidconnect';
import { APP_CONFIG, LOOKUP_HASH } from '../app.tokens';
import type { AppConfig } from '../config';
import { decideAndAppend } from '../event-store/decider';
import { EVENT_STORE, type EventStore } from '../event-store/event-store.port';
import { sendApiError } from '../http/api-exception.filter';
import { READ_YOUR_WRITES, type ReadYourWrites } from '../projections/read-your-writes';
import { DISPLAY_NAME_MAX } from '@joy/domain';
import { acceptedNameOrNull } from '../names/name-rule';
import { SCREEN_HINT, type OidcEndpoints } from './built-in-provider';
import { CookieFlowStore, type FlowRequest, newPkcePair, safeReturnPath, withCodeVerifier } from './oidc-flow';
import { resolveAccount, userStreamCodec } from './accounts';
import { identityDecider, SignIn } from './identity.decider';
import { KEY_STORE, type KeyStore } from './key-store';
import type { LookupHash } from './lookup-hash';
import type { SessionUser } from './signed-in.guard';

const STRATEGY = 'oidc';

/** What one sign-in asks of the authorization request. */
interface LoginOptions {
  codeChallenge?: string;
  signup?: boolean;
}

/**
 * Sign-in as a backend-for-frontend: passport-openidconnect runs the authorization-code flow, tokens stay
 * on the server, the browser gets only the session cookie.
 */
@Injectable()
export class SignInService {
  private readonly logger = new Logger('SignIn');
  private endpoints: Promise<OidcEndpoints> | null = null;
  private strategyReady: Promise<void> | null = null;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(READ_YOUR_WRITES) private readonly readYourWrites: ReadYourWrites,
    @Inject(KEY_STORE) private readonly keys: KeyStore,
    @Inject(LOOKUP_HASH) private readonly lookup: LookupHash,
  ) {
    passport.serializeUser((user, done) => done(null, (user as SessionUser).id));
    passport.deserializeUser((id: string, done) => done(null, { id } satisfies SessionUser));
  }

  /** Known endpoints (the development provider), or discovered from OIDC_ISSUER at the first sign-in. */
  useEndpoints(endpoints: OidcEndpoints): void {
    this.endpoints = Promise.resolve(endpoints);
  }

  private discover(): Promise<OidcEndpoints> {
    const oidc = this.config.oidc!;
    return fetch(`${oidc.issuer.replace(/\/$/, '')}/.well-known/openid-configuration`)
      .then((res) => {
        if (!res.ok) throw new Error(`OpenID discovery at ${oidc.issuer} answered ${res.status}`);
        return res.json() as Promise<Record<string, string>>;
      })
      .then((doc) => ({
        issuer: doc.issuer,
        authorizationURL: doc.authorization_endpoint,
        tokenURL: doc.token_endpoint,
        userInfoURL: doc.userinfo_endpoint,
        clientID: oidc.clientId,
        clientSecret: oidc.clientSecret,
      }));
  }

  private ensureStrategy(): Promise<void> {
    this.strategyReady ??= (this.endpoints ??= this.discover())
      .then((endpoints) => {
        const strategy = new OpenIdConnectStrategy(
          {
            ...endpoints,
            callbackURL: `${this.config.publicUrl}/api/callback`,
            // passport-openidconnect adds 'openid' itself: the request asks for 'openid profile email'.
            scope: ['profile', 'email'],
            // Fetch the userinfo claims (e-mail, name, picture): the ID token may carry only 'sub'.
            skipUserProfile: false,
            // A nonce on every request, checked in the ID token; state, nonce and PKCE verifier in a cookie.
            nonce: true,
            store: new CookieFlowStore(this.config.sessionSecret, this.config.publicUrl.startsWith('https://')),
            // The built-in provider always shows its form, so that a signed-out person is asked again (a shared
            // computer) and signing out and in can switch between people.
            ...(this.config.oidc ? {} : { prompt: 'login' }),
          } as unknown as ConstructorParameters<typeof OpenIdConnectStrategy>[0],
          (issuer: string, profile: passport.Profile, done: (err: Error | null, user?: SessionUser) => void) => {
            this.recordSignIn(issuer, profile).then((user) => done(null, user), (err: Error) => done(err));
          },
        );
        // PKCE (S256) on every authorization request; the verifier goes with the token request. Get Started and Sign
        // Up ask the built-in provider for its Create account view (`signup`, never set with OIDC_ISSUER).
        (strategy as unknown as { authorizationParams(options: LoginOptions): object }).authorizationParams = (options) => ({
          code_challenge: options.codeChallenge,
          code_challenge_method: 'S256',
          ...(options.signup ? { [SCREEN_HINT]: 'signup' } : {}),
        });
        withCodeVerifier(strategy);
        passport.use(STRATEGY, strategy);
      })
      .catch((err) => {
        // Let a later sign-in try the discovery again.
        this.strategyReady = null;
        this.endpoints = null;
        throw err;
      });
    return this.strategyReady;
  }

  /**
   * Finds the account the identity is linked to (a new one after a deletion), then appends UserRegistered at
   * its first sign-in (or UserProfileUpdated when claims changed), personal fields encrypted with its key.
   */
  private async recordSignIn(issuer: string, profile: passport.Profile): Promise<SessionUser> {
    const claims = ((profile as { _json?: Record<string, unknown> })._json ?? {}) as Record<string, string | undefined>;
    const email = claims.email ?? profile.emails?.[0]?.value ?? null;
    // The built-in provider's accounts are linked under its first address, whatever PUBLIC_URL is now.
    const endpoints = await this.endpoints;
    const linkIssuer = endpoints?.linkIssuer && issuer === endpoints.issuer ? endpoints.linkIssuer : issuer;
    const userId = await resolveAccount(this.store, this.lookup, linkIssuer, profile.id);
    const signIn: SignIn = {
      type: 'SignIn',
      userId,
      issuer: linkIssuer,
      subject: profile.id,
      email,
      // A claimed name the name rule refuses (bidi overrides, invisible characters) is not shown at all.
      firstName: acceptedNameOrNull(claims.given_name || profile.name?.givenName || claims.name?.split(' ')[0], DISPLAY_NAME_MAX),
      profileImageUrl: claims.picture ?? profile.photos?.[0]?.value ?? null,
    };
    const key = await this.keys.keyFor(userId);
    if (!key) throw new Error('The linked account was deleted');
    const { append, events } = await decideAndAppend(this.store, `user-${userId}`, identityDecider, signIn, { actorUserId: userId }, userStreamCodec(key));
    // The projections of what was written (see SettingsService.change).
    if (append) await this.readYourWrites.waitFor(append.position, { eventTypes: events.map((e) => e.type) });
    return { id: userId };
  }

  async login(req: Request, res: Response, next: NextFunction): Promise<void> {
    const returnTo = safeReturnPath(req.query.returnTo);
    // Already signed in (Back to a used sign-in page, then Continue; a second tab): straight into Joy, no form.
    const user = req.user as SessionUser | undefined;
    if (user && !(await this.keys.isDestroyed(user.id))) {
      res.redirect(returnTo ?? '/');
      return;
    }
    try {
      await this.ensureStrategy();
    } catch (err) {
      this.logger.error(`Sign-in unavailable: ${(err as Error).message}`);
      sendApiError(res, 'auth.unavailable', 'Sign-in is unavailable right now. Please try again shortly.');
      return;
    }
    const pkce = newPkcePair();
    // ?returnTo=/insights (a bookmark opened signed out): kept in the flow cookie, followed after the callback.
    Object.assign(req as Request & FlowRequest, { pkceVerifier: pkce.verifier, returnTo });
    // ?signup=1 (Get Started, Sign Up): the built-in provider opens Create account; an OIDC_ISSUER's pages are its own.
    const options: LoginOptions = { codeChallenge: pkce.challenge, signup: !this.config.oidc && req.query.signup === '1' };
    passport.authenticate(STRATEGY, options as passport.AuthenticateOptions)(req, res, next);
  }

  async callback(req: Request, res: Response, next: NextFunction): Promise<void> {
    try {
      await this.ensureStrategy();
    } catch {
      res.redirect('/');
      return;
    }
    passport.authenticate(STRATEGY, (err: unknown, user: SessionUser | false) => {
      if (err || !user) {
        if (err) this.logger.warn(`Sign-in failed: ${(err as Error).message ?? err}`);
        res.redirect('/');
        return;
      }
      // passport regenerates the session id at login (no session fixation).
      req.login(user, (loginErr) => {
        if (loginErr) return next(loginErr);
        req.session.signedInAt = Date.now();
        req.session.save(() => res.redirect((req as Request & FlowRequest).returnTo ?? '/'));
      });
    })(req, res, next);
  }
}
