import { api, startTestApp, TestApp } from '../testing/app-harness';
import { ExternalProvider, signInThroughProvider, startExternalProvider } from '../testing/external-oidc-provider';

/**
 * Display names that come from an external identity provider's claims go through the same name rule: a claimed
 * name with a direction override is never shown (null; the person still signs in), and a name is stored in NFC.
 */
describe('names claimed by an external OpenID provider', () => {
  let provider: ExternalProvider;
  let app: TestApp;
  const givenNames: Record<string, string> = { spoofer: 'Ada\u202Egnp.exe', zoe: 'Zoe\u0308' };
  let next = 'spoofer';

  beforeAll(async () => {
    // The provider's "login page" signs in whoever the test chose.
    provider = await startExternalProvider({
      clientId: 'joy-names',
      claims: (id) => ({ email: `${id}@example.com`, given_name: givenNames[id] }),
      accountId: () => next,
    });
    app = await startTestApp(provider.appEnv);
  });
  afterAll(async () => {
    await app.destroy();
    await provider.close();
  });

  async function signInAs(account: string): Promise<string> {
    next = account;
    const cookie = await signInThroughProvider(app.baseUrl);
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
