import express from 'express';
import type { Server } from 'node:http';
import { freePort } from '../bench/app-process';
import { api, startTestApp, TestApp } from '../testing/app-harness';

/**
 * Display names that come from an external identity provider's claims go through the same name rule: a claimed
 * name with a direction override is never shown (null; the person still signs in), and a name is stored in NFC.
 */
describe('names claimed by an external OpenID provider', () => {
  let provider: Server;
  let app: TestApp;
  const givenNames: Record<string, string> = { spoofer: 'Ada\u202Egnp.exe', zoe: 'Zoe\u0308' };
  let next = 'spoofer';

  beforeAll(async () => {
    const { default: Provider } = await import('oidc-provider');
    const providerPort = await freePort();
    const appPort = await freePort();
    const issuer = `http://127.0.0.1:${providerPort}`;
    const oidc = new Provider(issuer, {
      clients: [
        {
          client_id: 'joy-names',
          client_secret: 'names-client-secret',
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
      findAccount: async (_ctx: unknown, id: string) => ({ accountId: id, claims: async () => ({ sub: id, email: `${id}@example.com`, given_name: givenNames[id] }) }),
      async loadExistingGrant(ctx: any) {
        const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client.clientId, accountId: ctx.oidc.session.accountId });
        grant.addOIDCScope('openid email profile');
        await grant.save();
        return grant;
      },
    } as any);
    const server = express();
    // The provider's "login page" signs in whoever the test chose.
    server.get('/interaction/:uid', async (req, res) => {
      await oidc.interactionFinished(req, res, { login: { accountId: next } }, { mergeWithLastSubmission: false });
    });
    server.use(oidc.callback());
    provider = server.listen(providerPort, '127.0.0.1');
    app = await startTestApp({ PORT: String(appPort), OIDC_ISSUER: issuer, OIDC_CLIENT_ID: 'joy-names', OIDC_CLIENT_SECRET: 'names-client-secret' });
  });
  afterAll(async () => {
    await app.destroy();
    await new Promise((done) => provider.close(done));
  });

  async function signInAs(account: string): Promise<string> {
    next = account;
    const jar: string[] = [];
    let res = await fetch(`${app.baseUrl}/api/login`, { redirect: 'manual' });
    for (let hops = 0; hops < 10 && res.status >= 300 && res.status < 400; hops++) {
      jar.push(...res.headers.getSetCookie().map((c) => c.split(';')[0]));
      const to = new URL(res.headers.get('location')!, res.url || app.baseUrl);
      if (to.pathname === '/' && to.origin === app.baseUrl) break;
      res = await fetch(to, { redirect: 'manual', headers: { cookie: jar.join('; ') } });
    }
    const cookie = jar.filter((c) => c.startsWith('joy.sid=')).at(-1);
    if (!cookie) throw new Error('no session');
    return cookie;
  }

  it('signs in a person whose claimed name has a direction override, and never shows that name', async () => {
    const cookie = await signInAs('spoofer');
    const me = (await api(app.baseUrl, cookie).get('/api/auth/user')).body;
    expect(me).toMatchObject({ email: 'spoofer@example.com', firstName: null });
  });

  it('stores a claimed name in NFC', async () => {
    const cookie = await signInAs('zoe');
    expect((await api(app.baseUrl, cookie).get('/api/auth/user')).body.firstName).toBe('Zo\u00EB');
  });
});
