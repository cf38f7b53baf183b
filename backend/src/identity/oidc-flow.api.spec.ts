import express from 'express';
import type { Server } from 'node:http';
import { freePort } from '../bench/app-process';
import { api, startTestApp, TestApp } from '../testing/app-harness';
import { runSignInFlow } from './dev-sign-in-client';
import { FLOW_COOKIE } from './oidc-flow';

/** The query of the authorization request the app sends the browser to. */
async function authorizationRequest(baseUrl: string): Promise<URLSearchParams> {
  const login = await fetch(`${baseUrl}/api/login`, { redirect: 'manual' });
  return new URL(login.headers.get('location')!).searchParams;
}

describe('OpenID Connect with the built-in provider: PKCE and nonce', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.destroy());

  it('sends a PKCE challenge (S256), a nonce and a state with every authorization request, each new', async () => {
    const a = await authorizationRequest(app.baseUrl);
    const b = await authorizationRequest(app.baseUrl);
    expect(a.get('code_challenge_method')).toBe('S256');
    expect(a.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(a.get('nonce')).toMatch(/^.{20}$/);
    expect(a.get('state')).toBeTruthy();
    expect(b.get('code_challenge')).not.toBe(a.get('code_challenge'));
    expect(b.get('nonce')).not.toBe(a.get('nonce'));
  });

  it('has its issuer at PUBLIC_URL/oidc', async () => {
    const doc = await (await fetch(`${app.baseUrl}/oidc/.well-known/openid-configuration`)).json();
    expect(doc.issuer).toBe(`${app.config.publicUrl}/oidc`);
    expect(doc.code_challenge_methods_supported).toEqual(['S256']);
  });

  it('refuses an authorization request without a PKCE challenge', async () => {
    const query = await authorizationRequest(app.baseUrl);
    query.delete('code_challenge');
    query.delete('code_challenge_method');
    const res = await fetch(`${app.baseUrl}/oidc/auth?${query}`, { redirect: 'manual' });
    const location = res.headers.get('location') ?? '';
    expect(location).toContain('error=invalid_request');
    expect(decodeURIComponent(location)).toMatch(/PKCE/);
  });

  it('signs nobody in when the flow cookie is missing or tampered with at the callback', async () => {
    const tamper = (cookies: string) => cookies.replace(new RegExp(`${FLOW_COOKIE}=([^;]+)`), (_m, v: string) => `${FLOW_COOKIE}=${v.slice(0, -4)}AAAA`);
    const drop = (cookies: string) => cookies.replace(new RegExp(`${FLOW_COOKIE}=[^;]+;? ?`), '');
    for (const change of [tamper, drop]) {
      const result = await runSignInFlow(app.baseUrl, 'login', { email: 'tamper@example.com', firstName: 'T' }, { beforeCallback: change });
      expect(result.cookie).toBeNull();
    }
    // Untouched, the same flow signs in.
    expect((await runSignInFlow(app.baseUrl, 'login', { email: 'tamper@example.com', firstName: 'T' })).cookie).not.toBeNull();
  });
});

describe('OpenID Connect with an external OIDC_ISSUER: PKCE and nonce too', () => {
  let provider: Server;
  let app: TestApp;
  const seen: URLSearchParams[] = [];
  const tokenRequests: URLSearchParams[] = [];

  beforeAll(async () => {
    const { default: Provider } = await import('oidc-provider');
    const providerPort = await freePort();
    const appPort = await freePort();
    const issuer = `http://127.0.0.1:${providerPort}`;
    const oidc = new Provider(issuer, {
      clients: [
        {
          client_id: 'joy-external',
          client_secret: 'external-client-secret',
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
      findAccount: async (_ctx: unknown, id: string) => ({ accountId: id, claims: async () => ({ sub: id, email: 'ext@example.com', given_name: 'Extra' }) }),
      async loadExistingGrant(ctx: any) {
        const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client.clientId, accountId: ctx.oidc.session.accountId });
        grant.addOIDCScope('openid email profile');
        await grant.save();
        return grant;
      },
    } as any);
    const server = express();
    server.use((req, _res, next) => {
      if (req.path === '/auth') seen.push(new URLSearchParams(req.url.split('?')[1]));
      next();
    });
    server.use('/token', express.urlencoded({ extended: false }), (req, _res, next) => {
      // oidc-provider takes a body parsed before it as it is.
      tokenRequests.push(new URLSearchParams(req.body as Record<string, string>));
      next();
    });
    // The external provider's "login page" signs the same person in at once.
    server.get('/interaction/:uid', async (req, res) => {
      await oidc.interactionFinished(req, res, { login: { accountId: 'external-subject-1' } }, { mergeWithLastSubmission: false });
    });
    server.use(oidc.callback());
    provider = server.listen(providerPort, '127.0.0.1');
    app = await startTestApp({ PORT: String(appPort), OIDC_ISSUER: issuer, OIDC_CLIENT_ID: 'joy-external', OIDC_CLIENT_SECRET: 'external-client-secret' });
  });
  afterAll(async () => {
    await app.destroy();
    await new Promise((done) => provider.close(done));
  });

  it('signs in with a PKCE challenge and a nonce, and sends the verifier with the token request', async () => {
    const jar: string[] = [];
    let res = await fetch(`${app.baseUrl}/api/login`, { redirect: 'manual' });
    for (let hops = 0; hops < 10 && res.status >= 300 && res.status < 400; hops++) {
      jar.push(...res.headers.getSetCookie().map((c) => c.split(';')[0]));
      const next = new URL(res.headers.get('location')!, res.url || app.baseUrl);
      if (next.pathname === '/' && next.origin === app.baseUrl) break;
      res = await fetch(next, { redirect: 'manual', headers: { cookie: jar.join('; ') } });
    }
    const cookie = jar.filter((c) => c.startsWith('joy.sid=')).at(-1)!;
    expect(cookie).toBeDefined();
    expect((await api(app.baseUrl, cookie).get('/api/auth/user')).body).toMatchObject({ email: 'ext@example.com', firstName: 'Extra' });
    expect(seen[0].get('code_challenge_method')).toBe('S256');
    expect(seen[0].get('nonce')).toBeTruthy();
    expect(tokenRequests[0].get('code_verifier')).toMatch(/^[\w-]{43}$/);
  });
});
