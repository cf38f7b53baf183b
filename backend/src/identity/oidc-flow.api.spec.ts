import express from 'express';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { api, startTestApp, TestApp } from '../testing/app-harness';
import { ExternalProvider, signInThroughProvider, startExternalProvider } from '../testing/external-oidc-provider';
import { idTokenSigningKey } from './built-in-provider';
import { runSignInFlow } from './dev-sign-in-client';
import { SqliteKeyStore } from './key-stores';
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

  it('asks for the Create account view for Get Started and Sign Up (?signup=1) only', async () => {
    const signup = new URL((await fetch(`${app.baseUrl}/api/login?signup=1`, { redirect: 'manual' })).headers.get('location')!).searchParams;
    expect(signup.get('screen_hint')).toBe('signup');
    expect(signup.get('prompt')).toBe('login');
    expect((await authorizationRequest(app.baseUrl)).has('screen_hint')).toBe(false);
  });

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

  it('signs ID tokens with its own ES256 key (public half only at jwks_uri), never a library development key', async () => {
    const doc = await (await fetch(`${app.baseUrl}/oidc/.well-known/openid-configuration`)).json();
    const { keys } = await (await fetch(doc.jwks_uri.replace(app.config.publicUrl, app.baseUrl))).json();
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
    expect(keys[0].d).toBeUndefined();
    // The key lives in the install's key store: another install (another key store) has another key.
    expect((await idTokenSigningKey(app.running.infra.keys)).kid).toBe(keys[0].kid);
    const dir = mkdtempSync(join(tmpdir(), 'joy-other-install-'));
    const otherKeys = new SqliteKeyStore(join(dir, 'keys.sqlite'));
    try {
      expect((await idTokenSigningKey(otherKeys)).kid).not.toBe(keys[0].kid);
    } finally {
      await otherKeys.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('returns to the page sign-in was asked from (a signed-out bookmark), only ever a page of this site', async () => {
    const landing = async (returnTo: string) =>
      (await runSignInFlow(app.baseUrl, 'login', { email: 'bookmark@example.com', firstName: 'B' }, { login: `/api/login?returnTo=${encodeURIComponent(returnTo)}` }))
        .callbackLocation;
    expect(await landing('/insights')).toBe('/insights');
    expect(await landing('/groups?group=g-1')).toBe('/groups?group=g-1');
    for (const elsewhere of ['//evil.example/x', '/\\evil.example', 'https://evil.example/', '/api/logout', 'insights', '/a b', '/.//evil.example']) {
      expect(await landing(elsewhere)).toBe('/');
    }
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
  let provider: ExternalProvider;
  let app: TestApp;
  const seen: URLSearchParams[] = [];
  const tokenRequests: URLSearchParams[] = [];
  // The provider's "login page" signs in whoever the test chose, with these claims.
  const claimed: Record<string, { email: string; given_name: string }> = {
    'external-subject-1': { email: 'ext@example.com', given_name: 'Extra' },
    spoofer: { email: 'spoofer@example.com', given_name: 'Ada\u202Egnp.exe' },
    zoe: { email: 'zoe@example.com', given_name: 'Zoe\u0308' },
  };
  let next = 'external-subject-1';

  beforeAll(async () => {
    provider = await startExternalProvider({
      clientId: 'joy-external',
      claims: (id) => claimed[id],
      accountId: () => next,
      before: (server) => {
        server.use((req, _res, next) => {
          if (req.path === '/auth') seen.push(new URLSearchParams(req.url.split('?')[1]));
          next();
        });
        server.use('/token', express.urlencoded({ extended: false }), (req, _res, next) => {
          // oidc-provider takes a body parsed before it as it is.
          tokenRequests.push(new URLSearchParams(req.body as Record<string, string>));
          next();
        });
      },
    });
    app = await startTestApp(provider.appEnv);
  });
  afterAll(async () => {
    await app.destroy();
    await provider.close();
  });

  it('signs in with a PKCE challenge and a nonce, and sends the verifier with the token request', async () => {
    const cookie = await signInThroughProvider(app.baseUrl);
    expect(cookie).not.toBeNull();
    expect((await api(app.baseUrl, cookie!).get('/api/auth/user')).body).toMatchObject({ email: 'ext@example.com', firstName: 'Extra' });
    expect(seen[0].get('code_challenge_method')).toBe('S256');
    expect(seen[0].get('nonce')).toBeTruthy();
    expect(tokenRequests[0].get('code_verifier')).toMatch(/^[\w-]{43}$/);
  });

  async function signInAs(account: string): Promise<string> {
    next = account;
    const cookie = await signInThroughProvider(app.baseUrl);
    if (!cookie) throw new Error('no session');
    return cookie;
  }

  // Names claimed by the provider go through the same name rule (names/name-rule.ts): a claimed name with a
  // direction override is never shown (null; the person still signs in), and a name is stored in NFC.
  it('signs in a person whose claimed name has a direction override, and never shows that name', async () => {
    const cookie = await signInAs('spoofer');
    const me = (await api(app.baseUrl, cookie).get('/api/auth/user')).body;
    expect(me).toMatchObject({ email: 'spoofer@example.com', firstName: null });
  });

  it('stores a claimed name in NFC', async () => {
    const cookie = await signInAs('zoe');
    expect((await api(app.baseUrl, cookie).get('/api/auth/user')).body.firstName).toBe('Zo\u00EB');
  });

  it("ignores Get Started's ?signup=1: the provider's own pages decide how to sign up", async () => {
    const login = await fetch(`${app.baseUrl}/api/login?signup=1`, { redirect: 'manual' });
    const query = new URL(login.headers.get('location')!).searchParams;
    expect(query.get('code_challenge')).toBeTruthy();
    expect(query.has('screen_hint')).toBe(false);
    expect(query.has('prompt')).toBe(false);
    expect(query.has('signup')).toBe(false);
  });

  it('takes a signed-in person straight into Joy at /api/login, to a page of this site only', async () => {
    const cookie = await signInAs('external-subject-1');
    const seenBefore = seen.length;
    const to = async (path: string) => (await fetch(`${app.baseUrl}${path}`, { redirect: 'manual', headers: { cookie } })).headers.get('location');
    expect(await to('/api/login')).toBe('/');
    expect(await to('/api/login?returnTo=%2Finsights')).toBe('/insights');
    expect(await to('/api/login?returnTo=%2F%2Fevil.example')).toBe('/');
    // Paths that URL normalisation turns into "//evil.example" (a review, 11-27: they answered Location: //evil.example).
    for (const dotted of ['/.//evil.example', '/x/..//evil.example', '/./\\evil.example']) {
      expect(await to(`/api/login?returnTo=${encodeURIComponent(dotted)}`)).toBe('/');
    }
    expect(seen.length).toBe(seenBefore);
  });
});
