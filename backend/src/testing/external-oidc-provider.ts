import express from 'express';
import type { Server } from 'node:http';
import { freePort } from '../bench/app-process';

/**
 * An external OpenID provider (oidc-provider) for tests of OIDC_ISSUER: one confidential client that redirects to
 * the app's /api/callback, PKCE required, and a "login page" that at once signs in whoever `accountId()` names.
 * `before` lets a test watch requests before the provider handles them.
 */
export interface ExternalProvider {
  issuer: string;
  /** The app's port, fixed before the app starts because the client's redirect URI names it. */
  appPort: number;
  /** The app's settings to use this provider. */
  appEnv: Record<string, string>;
  close(): Promise<void>;
}

export async function startExternalProvider(options: {
  clientId: string;
  claims: (accountId: string) => Record<string, unknown>;
  accountId: () => string;
  before?: (server: express.Express) => void;
}): Promise<ExternalProvider> {
  const { default: Provider } = await import('oidc-provider');
  const providerPort = await freePort();
  const appPort = await freePort();
  const issuer = `http://127.0.0.1:${providerPort}`;
  const clientSecret = `${options.clientId}-client-secret`;
  const oidc = new Provider(issuer, {
    clients: [
      {
        client_id: options.clientId,
        client_secret: clientSecret,
        redirect_uris: [`http://localhost:${appPort}/api/callback`],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    pkce: { required: () => true },
    claims: { openid: ['sub'], email: ['email'], profile: ['given_name'] },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    findAccount: async (_ctx: unknown, id: string) => ({ accountId: id, claims: async () => ({ sub: id, ...options.claims(id) }) }),
    // Consent is not what these tests are about: every client gets the scopes it asks for.
    async loadExistingGrant(ctx: any) {
      const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client.clientId, accountId: ctx.oidc.session.accountId });
      grant.addOIDCScope('openid email profile');
      await grant.save();
      return grant;
    },
  } as any);
  const server = express();
  options.before?.(server);
  server.get('/interaction/:uid', async (req, res) => {
    await oidc.interactionFinished(req, res, { login: { accountId: options.accountId() } }, { mergeWithLastSubmission: false });
  });
  server.use(oidc.callback());
  const listening: Server = server.listen(providerPort, '127.0.0.1');
  return {
    issuer,
    appPort,
    appEnv: { PORT: String(appPort), OIDC_ISSUER: issuer, OIDC_CLIENT_ID: options.clientId, OIDC_CLIENT_SECRET: clientSecret },
    close: () => new Promise((done) => listening.close(() => done())),
  };
}

/** Follows the app's sign-in redirects through the provider as a browser would; the session cookie, or null. */
export async function signInThroughProvider(baseUrl: string): Promise<string | null> {
  const jar: string[] = [];
  let res = await fetch(`${baseUrl}/api/login`, { redirect: 'manual' });
  for (let hops = 0; hops < 10 && res.status >= 300 && res.status < 400; hops++) {
    jar.push(...res.headers.getSetCookie().map((c) => c.split(';')[0]));
    const next = new URL(res.headers.get('location')!, res.url || baseUrl);
    if (next.pathname === '/' && next.origin === baseUrl) break;
    res = await fetch(next, { redirect: 'manual', headers: { cookie: jar.join('; ') } });
  }
  return jar.filter((c) => c.startsWith('joy.sid=')).at(-1) ?? null;
}
