import express, { ErrorRequestHandler, Express, Request, RequestHandler, Response } from 'express';
import { Logger } from '@nestjs/common';
import { DISPLAY_NAME_MAX, nameProblem, normalizeName } from '../names/name-rule';

/** The endpoints the sign-in client needs, whether discovered or known. */
export interface OidcEndpoints {
  issuer: string;
  authorizationURL: string;
  tokenURL: string;
  userInfoURL: string;
  clientID: string;
  clientSecret: string;
}

export const DEV_CLIENT_ID = 'joy-dev';

interface DevAccount {
  email: string;
  firstName: string;
}

/**
 * A development OpenID provider (oidc-provider) mounted at /oidc, used only when no OIDC_ISSUER is set.
 * Its sign-in form asks for an e-mail and a first name, no password: it is for running Joy on your own
 * machine, never for production.
 */
export async function mountDevIdentityProvider(
  app: Express,
  publicUrl: string,
  secret: string,
  signInLimit: RequestHandler,
): Promise<OidcEndpoints> {
  // oidc-provider is published as an ES module; a real dynamic import loads it from this CommonJS build.
  const { default: Provider } = await import('oidc-provider');
  const issuer = `${publicUrl}/oidc`;
  const clientSecret = `${secret}-client`;
  const accounts = new Map<string, DevAccount>();

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: DEV_CLIENT_ID,
        client_secret: clientSecret,
        redirect_uris: [`${publicUrl}/api/callback`],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    pkce: { required: () => false },
    cookies: { keys: [secret] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'given_name', 'picture'] },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/oidc/interaction/${interaction.uid}` },
    async findAccount(_ctx: unknown, id: string) {
      return {
        accountId: id,
        async claims() {
          const account = accounts.get(id);
          return { sub: id, email: id, email_verified: true, given_name: account?.firstName, name: account?.firstName };
        },
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
  provider.proxy = true;

  const form = express.urlencoded({ extended: false, limit: '10kb' });
  // One router at /oidc: other requests pass it with a single path check.
  const router = express.Router();
  router.get('/interaction/:uid', async (req: Request, res: Response) => {
    try {
      await provider.interactionDetails(req, res);
      res.type('html').send(signInPage(req.params.uid as string, {}));
    } catch {
      res.status(400).type('html').send(expiredPage());
    }
  });
  router.post('/interaction/:uid/login', signInLimit, form, async (req: Request, res: Response) => {
    const email = String(req.body?.email ?? '').trim().toLowerCase();
    const firstName = normalizeName(String(req.body?.firstName ?? ''));
    const error = !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) || email.length > 254
      ? 'Enter a valid e-mail address.'
      : firstName.length > DISPLAY_NAME_MAX
        ? `First name can be at most ${DISPLAY_NAME_MAX} characters.`
        : nameProblem(firstName, 'First name');
    if (error) {
      // Never echo a long input back: the form shows at most what its fields accept.
      const shown = { email: email.slice(0, 254), firstName: firstName.slice(0, DISPLAY_NAME_MAX) };
      res.status(400).type('html').send(signInPage(req.params.uid as string, { ...shown, error }));
      return;
    }
    try {
      accounts.set(email, { email, firstName });
      await provider.interactionFinished(req, res, { login: { accountId: email } }, { mergeWithLastSubmission: false });
    } catch {
      res.status(400).type('html').send(expiredPage());
    }
  });
  // A form over its size limit (or otherwise unreadable) gets the form again with the reason, never a 500.
  router.use('/interaction/:uid/login', ((err, req, res, next) => {
    const status = (err as { status?: number }).status;
    if (!status || status >= 500) return next(err);
    const error = status === 413 ? 'The form was too large: each field holds a few hundred characters at most.' : 'The form could not be read. Please try again.';
    res.status(status).type('html').send(signInPage(req.params.uid as string, { error }));
  }) as ErrorRequestHandler);
  router.use(provider.callback());
  app.use('/oidc', router);
  new Logger('Identity').warn(`No OIDC_ISSUER set: using the development sign-in at ${issuer} (no passwords; not for production)`);

  return {
    issuer,
    authorizationURL: `${issuer}/auth`,
    tokenURL: `${issuer}/token`,
    userInfoURL: `${issuer}/me`,
    clientID: DEV_CLIENT_ID,
    clientSecret,
  };
}

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Sign in to Joy (development)</title><style>
body{font-family:system-ui,sans-serif;background:#fff8f0;display:grid;place-items:center;min-height:100vh;margin:0;color:#2b2118}
main{background:#fff;padding:2rem;border-radius:16px;box-shadow:0 8px 30px #0001;width:min(92vw,380px)}
h1{font-size:1.4rem;margin:0 0 .25rem}p{color:#6b5d52;margin:.25rem 0 1rem}label{display:block;font-weight:600;margin:.75rem 0 .25rem}
input{width:100%;box-sizing:border-box;padding:.6rem;border:1px solid #d9cbbd;border-radius:8px;font-size:1rem}
input:focus,button:focus{outline:3px solid #fa8c16;outline-offset:2px}
button{margin-top:1.25rem;width:100%;padding:.7rem;border:0;border-radius:8px;background:#d46b08;color:#fff;font-size:1rem;font-weight:600;cursor:pointer}
.error{color:#a8071a;font-weight:600}.note{font-size:.85rem}</style></head><body><main>${body}</main></body></html>`;
}

function signInPage(uid: string, values: { email?: string; firstName?: string; error?: string }): string {
  return page(`<h1>Sign in to Joy</h1>
<p class="note">Development sign-in: no password is asked. Use it only on your own machine.</p>
${values.error ? `<p class="error" role="alert">${escape(values.error)}</p>` : ''}
<form method="post" action="/oidc/interaction/${escape(uid)}/login">
<label for="email">E-mail</label><input id="email" name="email" type="email" autocomplete="email" required value="${escape(values.email ?? '')}">
<label for="firstName">First name</label><input id="firstName" name="firstName" autocomplete="given-name" maxlength="80" value="${escape(values.firstName ?? '')}">
<button type="submit">Sign in</button></form>`);
}

function expiredPage(): string {
  return page('<h1>This sign-in has expired</h1><p>Please <a href="/api/login">start again</a>.</p>');
}
