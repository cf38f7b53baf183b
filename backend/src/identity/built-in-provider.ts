import express, { ErrorRequestHandler, Express, Request, RequestHandler, Response } from 'express';
import { Logger } from '@nestjs/common';
import { createECDH, createHash } from 'node:crypto';
import type { KeyStore } from './key-store';
import type { AppConfig } from '../config';
import { optIns } from '../config';
import { tooManyAttempts } from './accounts/attempt-throttle';
import { PasswordGuard } from './accounts/password-guard';
import { isEmail, LocalAccounts, normaliseEmail } from './accounts/local-accounts';
import { PASSKEY_SIGN_IN_SCRIPT } from './accounts/passkey-sign-in.script';
import { ENTER_EMAIL, firstNameProblem, INVALID_EMAIL, signInFieldProblems } from './accounts/form-checks';
import { MAX_PASSWORD_LENGTH, newPasswordProblem } from './accounts/passwords';
import {
  devSignInPage,
  messagePage,
  PageOptions,
  resetPage,
  signInPage,
  signUpClosedPage,
  signUpPage,
  SignInValues,
  SignUpValues,
} from './accounts/sign-in-pages';
import { normalizeName } from '../names/name-rule';
import { loginEveryTime, providerStorage } from './provider-storage';

/** The interaction result's note of the account's credentials when the sign-in checked them (findAccount). */
const CREDENTIALS_CHECKED = 'joyCredentialsChecked';

/** The endpoints the sign-in client needs, whether discovered or known. */
export interface OidcEndpoints {
  issuer: string;
  authorizationURL: string;
  tokenURL: string;
  userInfoURL: string;
  clientID: string;
  clientSecret: string;
  /** The issuer people's identity links are keyed by, when not `issuer` (the built-in provider: its first address). */
  linkIssuer?: string;
}

export const BUILT_IN_CLIENT_ID = 'joy';
/** The path of the built-in provider: its issuer is PUBLIC_URL + this. */
export const BUILT_IN_PATH = '/oidc';

const WRONG_CREDENTIALS = 'Wrong e-mail or password.';
/** The authorization parameter that opens Create account rather than Sign in (GET /api/login?signup=1). */
export const SCREEN_HINT = 'screen_hint';

/** Where people sign in, and whether they can create accounts: said once the app is listening. */
export function signInNotice(config: AppConfig): string {
  if (config.oidc) return `People sign in through ${config.oidc.issuer} (OIDC_ISSUER)`;
  const signup =
    config.signup === 'open'
      ? 'sign-up is open: anyone who reaches this address can create an account (SIGNUP=closed to stop it)'
      : 'sign-up is closed (SIGNUP=closed)';
  return `Sign in at ${config.publicUrl}/ (accounts of the built-in sign-in, issuer ${config.publicUrl}${BUILT_IN_PATH}); ${signup}`;
}

/**
 * The built-in OpenID provider (oidc-provider) at PUBLIC_URL/oidc, used when no OIDC_ISSUER is set. The app signs
 * in through it with OpenID Connect like through any provider; its own pages are Sign in (e-mail and password,
 * or a passkey) and Create account (when SIGNUP=open), backed by `LocalAccounts`. With AUTH_DEV_LOGIN=1 it also
 * offers the password-less development form (an e-mail and a first name, nothing checked).
 */
export async function mountBuiltInProvider(
  app: Express,
  config: AppConfig,
  signInLimit: RequestHandler,
  /** Sign-in forms opened (GET /oidc/auth) per network. */
  signInPagesLimit: RequestHandler,
  accounts: LocalAccounts,
  keys: KeyStore,
  /** After a password reset, with the account's id (its subject): ends the sessions of the Joy account it signs in to. */
  onPasswordReset: (accountId: string) => Promise<void>,
): Promise<OidcEndpoints> {
  // oidc-provider is published as an ES module; a real dynamic import loads it from this CommonJS build.
  const { default: Provider, interactionPolicy } = await import('oidc-provider');
  const issuer = `${config.publicUrl}${BUILT_IN_PATH}`;
  const clientSecret = `${config.sessionSecret}-client`;
  const devAccounts = new Map<string, { firstName: string }>();
  const guard = new PasswordGuard();
  const pageOptions: PageOptions = { title: 'Sign in', demo: config.production && optIns(config).length > 0 };

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: BUILT_IN_CLIENT_ID,
        client_secret: clientSecret,
        redirect_uris: [`${config.publicUrl}/api/callback`],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_post',
        id_token_signed_response_alg: 'ES256',
      },
    ],
    // ID tokens are signed with this install's own key, never oidc-provider's published development keys.
    jwks: { keys: [await idTokenSigningKey(keys)] },
    // Every authorization request must carry a PKCE challenge (S256, the only method oidc-provider accepts).
    pkce: { required: () => true },
    cookies: { keys: [config.sessionSecret] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'given_name', 'picture'] },
    features: { devInteractions: { enabled: false } },
    // Get Started and Sign Up ask for the Create account view (screen_hint=signup); other values are ignored.
    extraParams: [SCREEN_HINT],
    // Lifetimes (seconds), set rather than left to oidc-provider's defaults (14 days for a session and a grant):
    // every sign-in asks for the password (loginEveryTime), so its session and grant serve that sign-in only, and the
    // tokens are traded for the person's claims once, at the callback. A form stays open for an hour.
    ttl: { Interaction: 3600, Session: 3600, Grant: 3600, AuthorizationCode: 60, AccessToken: 600, IdToken: 600 },
    interactions: { policy: loginEveryTime(interactionPolicy as never), url: (_ctx: unknown, interaction: { uid: string }) => `${BUILT_IN_PATH}/interaction/${interaction.uid}` },
    adapter: providerStorage(),
    async findAccount(ctx: any, id: string, token?: { authTime?: number }) {
      // A sign-in made before a password reset (its form sent with the old password, its last step followed after)
      // is no sign-in: the credentials it checked (`finish`) must still be the account's. At the callback's exchange
      // of its code (no interaction then), the same by the time it was made, to the second.
      const checked = ctx?.oidc?.result?.[CREDENTIALS_CHECKED];
      const credentials = accounts.credentialsVersion(id);
      if (typeof checked === 'number' && checked !== credentials) return undefined;
      if (typeof token?.authTime === 'number' && token.authTime * 1000 < credentials - 999) return undefined;
      const dev = devAccounts.get(id);
      if (dev) {
        return { accountId: id, claims: async () => ({ sub: id, email: id, email_verified: false, given_name: dev.firstName, name: dev.firstName }) };
      }
      const profile = await accounts.profile(id);
      if (!profile) return undefined; // removed with its Joy account: nothing signs in to it any more
      return {
        accountId: id,
        claims: async () => ({ sub: id, email: profile.email, email_verified: false, given_name: profile.firstName, name: profile.firstName }),
      };
    },
    // Joy is this provider's only, first-party client: grant its scopes without a consent screen.
    async loadExistingGrant(ctx: any) {
      const grantId = ctx.oidc.result?.consent?.grantId || ctx.oidc.session.grantIdFor(ctx.oidc.client.clientId);
      if (grantId) return ctx.oidc.provider.Grant.find(grantId);
      const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client.clientId, accountId: ctx.oidc.session.accountId });
      grant.addOIDCScope('openid email profile');
      await grant.save();
      return grant;
    },
  } as any);
  // Behind a proxy, oidc-provider (Koa) believes X-Forwarded-* only as far as TRUST_PROXY says.
  provider.proxy = config.trustProxy !== false;

  const form = express.urlencoded({ extended: false, limit: '10kb' });
  const text = (req: Request, name: string) => {
    const value = (req.body as Record<string, unknown> | undefined)?.[name];
    return typeof value === 'string' ? value : '';
  };
  // Sign-in pages may hold what was typed (an e-mail): never kept by a browser or a shared cache.
  const send = (res: Response, status: number, html: string) => res.status(status).type('html').setHeader('Cache-Control', 'no-store').send(html);
  // Also what Back shows right after signing in: /api/login takes a signed-in person straight into Joy.
  const expired = (req: Request, res: Response) =>
    send(res, 400, messagePage(pageOptions, 'This sign-in page has expired', 'Sign-in pages work once, for a limited time. If you have just signed in, Continue takes you into Joy; if not, it starts a new sign-in.', {
      href: req.path.endsWith('/signup') ? '/api/login?signup=1' : '/api/login',
      label: 'Continue',
    }));
  const signInView = (uid: string, values: Omit<SignInValues, 'signupOpen' | 'passkeys' | 'devLogin'>) =>
    signInPage(pageOptions, uid, { ...values, signupOpen: config.signup === 'open', passkeys: true, devLogin: config.devLogin });
  const tooMany = (res: Response, html: (error: string) => string, waitMs: number) => {
    res.setHeader('Retry-After', String(Math.ceil(waitMs / 1000)));
    send(res, 429, html(tooManyAttempts(waitMs)));
  };
  /** Runs a handler of an interaction that is still open (its cookie and uid match), else the expired page. */
  const interaction =
    (handler: (req: Request, res: Response, uid: string, params: Record<string, unknown>) => Promise<void>) =>
    async (req: Request, res: Response) => {
      const uid = req.params.uid as string;
      let details: { uid: string; params: Record<string, unknown> };
      try {
        details = await provider.interactionDetails(req, res);
      } catch {
        expired(req, res);
        return;
      }
      // The cookie's interaction, not any uid of the address: a made-up one would get (and keep) a challenge of its own.
      if (details.uid !== uid) return expired(req, res);
      await handler(req, res, uid, details.params);
    };
  // Signed in now, when the password or passkey was checked (oidc-provider would take the time the browser follows
  // the next step), with the credentials as they were checked (findAccount refuses the sign-in once they change).
  const finish = (req: Request, res: Response, accountId: string) =>
    provider.interactionFinished(
      req,
      res,
      { login: { accountId, ts: Math.floor(Date.now() / 1000) }, [CREDENTIALS_CHECKED]: accounts.credentialsVersion(accountId) },
      { mergeWithLastSubmission: false },
    );

  // One router at /oidc: other requests pass it with a single path check.
  const router = express.Router();
  const signUpView = (uid: string) => (config.signup === 'open' ? signUpPage(pageOptions, uid, {}) : signUpClosedPage(pageOptions, uid));
  router.get(
    '/interaction/:uid',
    interaction(async (_req, res, uid, params) => {
      // Get Started and Sign Up (a new visitor) open Create account; Sign In the sign-in form.
      if (params[SCREEN_HINT] === 'signup') return void send(res, 200, signUpView(uid));
      send(res, 200, config.devLogin ? devSignInPage(pageOptions, uid, {}) : signInView(uid, {}));
    }),
  );
  router.get(
    '/interaction/:uid/signin',
    interaction(async (_req, res, uid) => {
      send(res, 200, signInView(uid, {}));
    }),
  );
  router.post(
    '/interaction/:uid/signin',
    signInLimit,
    form,
    interaction(async (req, res, uid) => {
      const email = normaliseEmail(text(req, 'email'));
      const password = text(req, 'password');
      // An empty field is asked for by name; a password no account can have gets the answer of a wrong one.
      const errors = signInFieldProblems(email, password);
      if (errors || password.length > MAX_PASSWORD_LENGTH) {
        send(res, 400, signInView(uid, errors ? { email, errors } : { email, error: WRONG_CREDENTIALS }));
        return;
      }
      const accountId = await guard.check(accounts.throttleKey(email), req, () => accounts.authenticate(email, password));
      if (accountId !== null && typeof accountId === 'object') return tooMany(res, (error) => signInView(uid, { email, error }), accountId.wait);
      if (!accountId) {
        send(res, 401, signInView(uid, { email, error: WRONG_CREDENTIALS }));
        return;
      }
      await finish(req, res, accountId);
    }),
  );
  router.get(
    '/interaction/:uid/signup',
    interaction(async (_req, res, uid) => {
      send(res, 200, signUpView(uid));
    }),
  );
  router.post(
    '/interaction/:uid/signup',
    signInLimit,
    form,
    interaction(async (req, res, uid) => {
      if (config.signup !== 'open') {
        send(res, 403, signUpClosedPage(pageOptions, uid));
        return;
      }
      const firstName = normalizeName(text(req, 'firstName'));
      const email = normaliseEmail(text(req, 'email'));
      const password = text(req, 'password');
      const errors: NonNullable<SignUpValues['errors']> = {};
      const nameProblem = firstNameProblem(firstName);
      if (nameProblem) errors.firstName = nameProblem;
      if (!isEmail(email)) errors.email = email === '' ? ENTER_EMAIL : INVALID_EMAIL;
      const weak = newPasswordProblem(password, text(req, 'confirm'), email);
      if (weak) errors.password = weak;
      if (Object.keys(errors).length > 0) {
        send(res, 400, signUpPage(pageOptions, uid, { firstName, email, errors }));
        return;
      }
      // An e-mail with an account: its owner signing up again with their password is signed in; anyone else learns
      // no more than a refused sign-up, and pays a wrong password's price in the throttle.
      const outcome = await guard.check(accounts.throttleKey(email), req, async () => (await accounts.create({ email, firstName, password })) ?? accounts.authenticate(email, password));
      if (outcome !== null && typeof outcome === 'object') return tooMany(res, (error) => signUpPage(pageOptions, uid, { firstName, email, error }), outcome.wait);
      if (outcome) return finish(req, res, outcome);
      send(res, 409, signUpPage(pageOptions, uid, { firstName, email, error: 'This account could not be created. If you already have one, sign in instead.' }));
    }),
  );
  router.get('/assets/passkey-sign-in.js', (_req, res) => {
    res.type('application/javascript').setHeader('Cache-Control', 'no-cache');
    res.send(PASSKEY_SIGN_IN_SCRIPT);
  });
  router.get(
    '/interaction/:uid/passkey/options',
    signInLimit,
    interaction(async (_req, res, uid) => {
      res.json(await accounts.passkeys.signInOptions(uid));
    }),
  );
  router.post(
    '/interaction/:uid/passkey',
    signInLimit,
    express.json({ limit: '20kb' }),
    interaction(async (req, res, uid) => {
      const wait = guard.waitMs(null, req);
      if (wait > 0) {
        res.setHeader('Retry-After', String(Math.ceil(wait / 1000)));
        res.status(429).json({ message: tooManyAttempts(wait) });
        return;
      }
      const accountId = await accounts.passkeys.signIn(uid, req.body);
      if (!accountId) {
        guard.failNetwork(req);
        res.status(401).json({ message: 'This passkey could not sign you in. Try again, or sign in with your e-mail and password.' });
        return;
      }
      const redirect = await provider.interactionResult(req, res, { login: { accountId } }, { mergeWithLastSubmission: false });
      res.json({ redirect });
    }),
  );
  // The development form checks its input first (nothing changes on bad input), then the interaction.
  router.post('/interaction/:uid/login', signInLimit, form, async (req, res) => {
    const uid = req.params.uid as string;
    if (!config.devLogin) {
      send(res, 404, messagePage(pageOptions, 'Not found', 'The development sign-in is not enabled on this install.'));
      return;
    }
    const email = normaliseEmail(text(req, 'email'));
    const firstName = normalizeName(text(req, 'firstName'));
    const error = !isEmail(email) ? INVALID_EMAIL : firstName !== '' ? firstNameProblem(firstName) : null;
    if (error) {
      send(res, 400, devSignInPage(pageOptions, uid, { email, firstName, error }));
      return;
    }
    await interaction(async () => {
      devAccounts.set(email, { firstName });
      await finish(req, res, email);
    })(req, res);
  });
  router.get('/reset/:token', (req, res) => {
    const token = String(req.params.token);
    if (!accounts.isLiveResetToken(token)) return send(res, 404, deadLink());
    send(res, 200, resetPage(pageOptions, token, {}));
  });
  router.post('/reset/:token', signInLimit, form, async (req, res) => {
    const token = String(req.params.token);
    if (!accounts.isLiveResetToken(token)) return send(res, 404, deadLink());
    const password = text(req, 'password');
    const weak = newPasswordProblem(password, text(req, 'confirm'), '');
    if (weak) return send(res, 400, resetPage(pageOptions, token, { errors: { password: weak } }));
    const accountId = await accounts.resetPassword(token, password);
    if (!accountId) return send(res, 404, deadLink());
    guard.clearAccount(accounts.throttleKeyOf(accountId));
    await onPasswordReset(accountId);
    send(res, 200, messagePage(pageOptions, 'Password changed', 'Your new password is set. Sign in with it now.', { href: '/api/login', label: 'Sign in' }));
  });
  const deadLink = () =>
    messagePage(pageOptions, 'This link no longer works', 'A reset link works once, for an hour. Ask the person who runs Joy for a new one.', {
      href: '/',
      label: 'Back to Joy',
    });
  // The passkey step is called by the sign-in page's script, which reads JSON: a body it cannot read is answered so.
  router.use('/interaction/:uid/passkey', ((err, _req, res, next) => {
    const status = (err as { status?: number }).status;
    if (!status || status >= 500) return next(err);
    res.status(status).json({ message: status === 413 ? 'The passkey answer was too large.' : 'The passkey answer could not be read: it must be a JSON object.' });
  }) as ErrorRequestHandler);
  // A form over its size limit (or otherwise unreadable) gets a page with the reason, never a 500.
  router.use(['/interaction/:uid', '/reset/:token'], ((err, _req, res, next) => {
    const status = (err as { status?: number }).status;
    if (!status || status >= 500) return next(err);
    const reason = status === 413 ? 'The form was too large: each field holds a few hundred characters at most.' : 'The form could not be read.';
    send(res, status, messagePage(pageOptions, 'Please try again', reason, { href: '/api/login', label: 'Start again' }));
  }) as ErrorRequestHandler);
  // Each visit opens a sign-in form kept until it expires (provider-storage.ts): counted per network.
  router.get('/auth', signInPagesLimit);
  router.use(provider.callback());
  app.use(BUILT_IN_PATH, router);

  if (config.devLogin) new Logger('Identity').warn('AUTH_DEV_LOGIN=1: the password-less development sign-in is on (anyone can sign in as anyone)');

  return {
    issuer,
    authorizationURL: `${issuer}/auth`,
    tokenURL: `${issuer}/token`,
    userInfoURL: `${issuer}/me`,
    clientID: BUILT_IN_CLIENT_ID,
    clientSecret,
    linkIssuer: accounts.store.linkIssuer(issuer),
  };
}

export const ID_TOKEN_KEY_ID = 'install:oidc-signing-key';

/**
 * The install's ID-token signing key (ES256), kept in the key store beside the lookup secret so that every api
 * replica signs alike: a P-256 private key is the 32 random bytes the key store makes.
 */
export async function idTokenSigningKey(keys: KeyStore): Promise<Record<string, string>> {
  const secret = await keys.keyFor(ID_TOKEN_KEY_ID);
  if (!secret) throw new Error(`The install's sign-in signing key (${ID_TOKEN_KEY_ID}) was destroyed in the key store: restore the key store from a backup`);
  const ecdh = createECDH('prime256v1');
  ecdh.setPrivateKey(secret);
  const point = ecdh.getPublicKey(); // 0x04 | x | y
  return {
    kty: 'EC',
    crv: 'P-256',
    d: secret.toString('base64url'),
    x: point.subarray(1, 33).toString('base64url'),
    y: point.subarray(33).toString('base64url'),
    use: 'sig',
    alg: 'ES256',
    kid: createHash('sha256').update(point).digest('base64url').slice(0, 16),
  };
}
