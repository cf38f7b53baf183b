import { AsyncLocalStorage } from 'node:async_hooks';
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import { parse as parseCookies, serialize as serializeCookie } from 'cookie';

/**
 * What a sign-in remembers between the authorization request and the callback: the state handle, the nonce the
 * ID token must carry, and the PKCE code verifier. It travels in a short-lived, encrypted, HttpOnly cookie scoped to
 * the callback, not in a session: a visitor who only starts a sign-in leaves no stored session behind.
 */
export const FLOW_COOKIE = 'joy.oidc';
const FLOW_TTL_SECONDS = 10 * 60;

interface Flow {
  handle: string;
  nonce: string;
  verifier: string;
  issued: number;
  /** The app page to land on after signing in (a checked same-site path), or undefined for Home. */
  returnTo?: string;
}

/** What the sign-in hands the flow store on the request: set before authenticating, read at the callback. */
export interface FlowRequest {
  pkceVerifier?: string;
  returnTo?: string;
}

/**
 * A page of this app to return to after signing in: a path on this site ("/insights", "/groups?group=…"), never
 * another site ("//evil.example", "/\\evil.example", "https://…"), the API, or anything odd; else undefined.
 */
export function safeReturnPath(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > 512 || !/^\/(?![/\\])[\x21-\x7e]*$/.test(value)) return undefined;
  const url = new URL(value, 'http://joy.invalid');
  if (url.origin !== 'http://joy.invalid' || url.pathname.startsWith('/api/') || url.pathname.startsWith('/oidc')) return undefined;
  const path = url.pathname + url.search;
  // Checked again once normalised: "/.//evil.example" becomes "//evil.example", another site (a review, 11-27).
  return /^\/(?![/\\])/.test(path) ? path : undefined;
}

export interface PkcePair {
  verifier: string;
  challenge: string;
}

/** RFC 7636: a random verifier (43 characters) and its S256 challenge. */
export function newPkcePair(): PkcePair {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** The verifier of the callback being handled, for the token request (see `withCodeVerifier`). */
const currentVerifier = new AsyncLocalStorage<string>();

type StoreCallback = (err: Error | null, handle?: string) => void;
type VerifyCallback = (err: Error | null, ctx?: false | { nonce: string; issued: Date }, info?: unknown) => void;

/**
 * A state store for passport-openidconnect that keeps the flow in the encrypted cookie. `store` takes the PKCE
 * verifier from the request (set by the sign-in before authenticating); `verify` checks the handle, ends the
 * cookie (one use), and runs the rest of the callback with the verifier at hand for the token request.
 */
export class CookieFlowStore {
  private readonly key: Buffer;

  constructor(
    secret: string,
    private readonly secure: boolean,
  ) {
    this.key = Buffer.from(hkdfSync('sha256', secret, 'joy-oidc-flow', 'aes-256-gcm', 32));
  }

  store(req: Request, ctx: { nonce?: string }, _appState: unknown, _meta: unknown, cb: StoreCallback): void {
    const { pkceVerifier: verifier, returnTo } = req as Request & FlowRequest;
    if (!ctx.nonce || !verifier) return cb(new Error('A sign-in must carry a nonce and a PKCE verifier'));
    const flow: Flow = { handle: randomBytes(18).toString('base64url'), nonce: ctx.nonce, verifier, issued: Date.now(), returnTo };
    req.res!.append('Set-Cookie', serializeCookie(FLOW_COOKIE, this.seal(flow), this.cookieOptions(FLOW_TTL_SECONDS)));
    cb(null, flow.handle);
  }

  verify(req: Request, handle: string, cb: VerifyCallback): void {
    const sealed = parseCookies(req.headers.cookie ?? '')[FLOW_COOKIE];
    (req.res as Response).append('Set-Cookie', serializeCookie(FLOW_COOKIE, '', this.cookieOptions(0)));
    const flow = sealed ? this.open(sealed) : null;
    if (!flow || Date.now() - flow.issued > FLOW_TTL_SECONDS * 1000 || !sameText(flow.handle, String(handle))) {
      return cb(null, false, { message: 'Unable to verify authorization request state.' });
    }
    (req as Request & FlowRequest).returnTo = safeReturnPath(flow.returnTo);
    currentVerifier.run(flow.verifier, () => cb(null, { nonce: flow.nonce, issued: new Date(flow.issued) }));
  }

  private cookieOptions(maxAge: number) {
    return { httpOnly: true, sameSite: 'lax' as const, secure: this.secure, path: '/api/callback', maxAge };
  }

  private seal(flow: Flow): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(JSON.stringify(flow), 'utf8'), cipher.final()]);
    return [iv, body, cipher.getAuthTag()].map((b) => b.toString('base64url')).join('.');
  }

  private open(sealed: string): Flow | null {
    try {
      const [iv, body, tag] = sealed.split('.').map((p) => Buffer.from(p, 'base64url'));
      const decipher = createDecipheriv('aes-256-gcm', this.key, iv);
      decipher.setAuthTag(tag);
      return JSON.parse(Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8')) as Flow;
    } catch {
      return null;
    }
  }
}

const sameText = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

interface OAuth2Client {
  getOAuthAccessToken(code: string, params: Record<string, string>, callback: (...args: unknown[]) => void): void;
}

/**
 * passport-openidconnect builds the token request itself, without a `code_verifier`: this adds the verifier of the
 * callback being handled (which `CookieFlowStore.verify` makes current). Without one the request is not sent.
 */
export function withCodeVerifier(strategy: unknown): void {
  const oauth2 = (strategy as { _oauth2: OAuth2Client })._oauth2;
  const original = oauth2.getOAuthAccessToken.bind(oauth2);
  oauth2.getOAuthAccessToken = (code, params, callback) => {
    const verifier = currentVerifier.getStore();
    if (!verifier) return callback(new Error('No PKCE verifier for this token request'));
    original(code, { ...params, code_verifier: verifier }, callback);
  };
}
