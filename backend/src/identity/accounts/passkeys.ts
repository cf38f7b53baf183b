import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { AccountStore } from './account-store';

/** The WebAuthn library, loaded at the first passkey step: it takes about 0.2 s, which every start spent for nothing. */
const webauthn = () => require('@simplewebauthn/server') as typeof import('@simplewebauthn/server');

/** A ceremony must be finished within this time of its options. */
const CHALLENGE_TTL_MS = 5 * 60 * 1000;
/** Passkeys an account may have (each is a row and a check at sign-in). */
export const MAX_PASSKEYS = 10;

/** Ceremonies open at once; past this the oldest is forgotten (its passkey step fails and is tried again). */
const MAX_OPEN_CHALLENGES = 10_000;

/** Open challenges, one per key (an account registering, an interaction signing in), forgotten once used. */
class Challenges {
  /** Oldest first: a key kept again moves to the end, so the expired ones are always at the front. */
  private readonly open = new Map<string, { challenge: string; at: number }>();

  keep(key: string, challenge: string): void {
    const now = Date.now();
    // Only the front is looked at: a flood of options requests costs each one a step, not a walk of the map.
    for (const [k, v] of this.open) {
      if (now - v.at <= CHALLENGE_TTL_MS && this.open.size < MAX_OPEN_CHALLENGES) break;
      this.open.delete(k);
    }
    this.open.delete(key);
    this.open.set(key, { challenge, at: now });
  }

  take(key: string): string | null {
    const entry = this.open.get(key);
    this.open.delete(key);
    return entry && Date.now() - entry.at <= CHALLENGE_TTL_MS ? entry.challenge : null;
  }
}

export interface PasskeyView {
  id: string;
  createdAt: string;
}

/**
 * Passkeys (WebAuthn) of the built-in sign-in's accounts, with @simplewebauthn/server: registered from the Account
 * page (discoverable credentials, so that signing in needs no e-mail), used on the Sign in page. The relying party
 * is PUBLIC_URL's host; each passkey's public key and counter are kept in accounts.sqlite and go with the account.
 */
export class Passkeys {
  private readonly rpID: string;
  private readonly origin: string;
  private readonly registrations = new Challenges();
  private readonly signIns = new Challenges();

  constructor(
    private readonly store: AccountStore,
    publicUrl: string,
  ) {
    const url = new URL(publicUrl);
    this.rpID = url.hostname;
    this.origin = url.origin;
  }

  list(accountId: string): PasskeyView[] {
    return this.store.passkeysOf(accountId).map((p) => ({ id: p.credentialId, createdAt: p.createdAt }));
  }

  async registrationOptions(accountId: string, label: string, displayName: string): Promise<PublicKeyCredentialCreationOptionsJSON> {
    const existing = this.store.passkeysOf(accountId);
    const options = await webauthn().generateRegistrationOptions({
      rpName: 'Joy',
      rpID: this.rpID,
      userName: label,
      userDisplayName: displayName,
      userID: new TextEncoder().encode(accountId),
      attestationType: 'none',
      excludeCredentials: existing.map((p) => ({ id: p.credentialId, transports: p.transports as never })),
      authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
    });
    this.registrations.keep(accountId, options.challenge);
    return options;
  }

  /** Verifies the authenticator's answer to the account's open registration; the new passkey, or null. */
  async register(accountId: string, response: RegistrationResponseJSON, now = new Date()): Promise<PasskeyView | null> {
    const expectedChallenge = this.registrations.take(accountId);
    if (!expectedChallenge || this.store.passkeysOf(accountId).length >= MAX_PASSKEYS) return null;
    const result = await webauthn().verifyRegistrationResponse({
      response,
      expectedChallenge,
      expectedOrigin: this.origin,
      expectedRPID: this.rpID,
      requireUserVerification: false,
    }).catch(() => null);
    if (!result?.verified) return null;
    const { credential } = result.registrationInfo;
    if (this.store.passkey(credential.id)) return null;
    const createdAt = now.toISOString();
    this.store.addPasskey({
      credentialId: credential.id,
      accountId,
      publicKey: Buffer.from(credential.publicKey),
      counter: credential.counter,
      transports: credential.transports ?? [],
      createdAt,
    });
    return { id: credential.id, createdAt };
  }

  remove(accountId: string, credentialId: string): boolean {
    return this.store.removePasskey(accountId, credentialId);
  }

  /** Options of a sign-in with any passkey of this site (the authenticator offers its own), for one interaction. */
  async signInOptions(interaction: string): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const options = await webauthn().generateAuthenticationOptions({ rpID: this.rpID, userVerification: 'preferred' });
    this.signIns.keep(interaction, options.challenge);
    return options;
  }

  /** The account whose passkey answered the interaction's challenge, or null (unknown passkey, bad signature, replay). */
  async signIn(interaction: string, response: AuthenticationResponseJSON): Promise<string | null> {
    const expectedChallenge = this.signIns.take(interaction);
    const passkey = typeof response?.id === 'string' ? this.store.passkey(response.id) : null;
    if (!expectedChallenge || !passkey) return null;
    const result = await webauthn().verifyAuthenticationResponse({
      response,
      expectedChallenge,
      expectedOrigin: this.origin,
      expectedRPID: this.rpID,
      credential: { id: passkey.credentialId, publicKey: new Uint8Array(passkey.publicKey), counter: passkey.counter, transports: passkey.transports as never },
      requireUserVerification: false,
    }).catch(() => null);
    if (!result?.verified) return null;
    this.store.setCounter(passkey.credentialId, result.authenticationInfo.newCounter);
    return passkey.accountId;
  }
}
