/**
 * What the built-in provider (oidc-provider) keeps between requests: open sign-in forms (Interaction), sessions,
 * grants and one-minute codes, in this process. oidc-provider's own memory store holds 1,000 entries and drops the
 * oldest past that, so 2,500 anonymous requests to /oidc/auth made every open sign-in form answer "This sign-in page
 * has expired" (a review, 11-27). Here an entry lives until it expires and is never pushed out by others: when the
 * store is full, new sign-in forms are refused instead (those already open keep working), and GET /oidc/auth has a
 * per-network limit (built-in-provider.ts), so filling it takes many networks.
 */

/** Entries at most: an open form is about 1 KB, so some 50 MB at worst. */
export const PROVIDER_STORAGE_MAX_ENTRIES = 50_000;

/** Models whose entries name a grant, revoked with it. */
const GRANTABLE = new Set(['AccessToken', 'AuthorizationCode', 'RefreshToken', 'DeviceCode', 'BackchannelAuthenticationRequest']);

type Payload = Record<string, unknown> & { uid?: string; grantId?: string; consumed?: number };

export class ProviderStorageFullError extends Error {
  constructor() {
    super('Too many sign-ins are open at once on this install; try again in a few minutes.');
    this.name = 'ProviderStorageFullError';
  }
}

/** An oidc-provider adapter class over one shared map, entries expiring with their `expiresIn`. */
export function providerStorage(maxEntries = PROVIDER_STORAGE_MAX_ENTRIES, now: () => number = Date.now) {
  const entries = new Map<string, { value: unknown; expiresAt: number }>();
  let writes = 0;

  const get = <T>(key: string): T | undefined => {
    const entry = entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= now()) {
      entries.delete(key);
      return undefined;
    }
    return entry.value as T;
  };
  const set = (key: string, value: unknown, expiresIn?: number) =>
    entries.set(key, { value, expiresAt: typeof expiresIn === 'number' ? now() + expiresIn * 1000 : Infinity });
  const sweep = () => {
    const t = now();
    for (const [key, entry] of entries) if (entry.expiresAt <= t) entries.delete(key);
  };
  const grantKey = (grantId: string) => `grant:${grantId}`;
  const uidKey = (uid: string) => `sessionUid:${uid}`;

  return class ProviderStorageAdapter {
    constructor(private readonly model: string) {}

    private key(id: string) {
      return `${this.model}:${id}`;
    }

    async upsert(id: string, payload: Payload, expiresIn?: number): Promise<void> {
      const key = this.key(id);
      if (++writes % 1000 === 0) sweep();
      if (!entries.has(key) && entries.size >= maxEntries) {
        sweep();
        // A new form is what a flood makes; a session or a code finishes a sign-in already under way.
        if (entries.size >= maxEntries && this.model === 'Interaction') throw new ProviderStorageFullError();
      }
      if (this.model === 'Session' && payload.uid) set(uidKey(payload.uid), id, expiresIn);
      if (GRANTABLE.has(this.model) && payload.grantId) {
        const members = get<Set<string>>(grantKey(payload.grantId)) ?? new Set<string>();
        members.add(key);
        set(grantKey(payload.grantId), members, expiresIn);
      }
      set(key, payload, expiresIn);
    }

    async find(id: string): Promise<Payload | undefined> {
      return get<Payload>(this.key(id));
    }

    async findByUid(uid: string): Promise<Payload | undefined> {
      const id = get<string>(uidKey(uid));
      return id === undefined ? undefined : this.find(id);
    }

    /** The device flow is off: no user codes. */
    async findByUserCode(): Promise<undefined> {
      return undefined;
    }

    async consume(id: string): Promise<void> {
      const payload = get<Payload>(this.key(id));
      if (payload) payload.consumed = Math.floor(now() / 1000);
    }

    async destroy(id: string): Promise<void> {
      const payload = get<Payload>(this.key(id));
      entries.delete(this.key(id));
      if (payload?.uid && get<string>(uidKey(payload.uid)) === id) entries.delete(uidKey(payload.uid));
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      for (const key of get<Set<string>>(grantKey(grantId)) ?? []) entries.delete(key);
      entries.delete(grantKey(grantId));
    }
  };
}

/**
 * The sign-in form on every authorization, whatever the request says: `prompt=login` is a parameter of a URL that
 * passes through the browser, so a person could take it out and be signed in from the provider's session with no
 * password, as whoever used the browser last (a shared computer), or after that account's password was reset (a
 * review, 11-27). The session then serves only the sign-in that made it.
 */
export function loginEveryTime(policy: { base(): PromptList; Check: CheckClass }): PromptList {
  const prompts = policy.base();
  const login = prompts.get('login');
  login?.checks.push(
    new policy.Check('login_every_time', 'End-User authentication is required for every sign-in', (ctx: { oidc: { result?: { login?: unknown } } }) =>
      ctx.oidc.result?.login ? policy.Check.NO_NEED_TO_PROMPT : policy.Check.REQUEST_PROMPT,
    ),
  );
  return prompts;
}

type CheckClass = { new (reason: string, description: string, check: (ctx: never) => boolean): unknown; REQUEST_PROMPT: boolean; NO_NEED_TO_PROMPT: boolean };
interface PromptList {
  get(name: string): { checks: unknown[] } | undefined;
}
