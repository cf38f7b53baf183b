import { createHash, randomBytes } from 'node:crypto';
import type { KeyStore } from '../key-store';
import type { LookupHash } from '../lookup-hash';
import { decryptField, encryptField } from '../personal-data';
import type { AccountStore } from './account-store';
import { Passkeys } from './passkeys';
import { checkPassword, hashPassword } from './passwords';

/** A reset link works once, for an hour. */
export const RESET_LINK_TTL_MS = 60 * 60 * 1000;

export interface NewAccount {
  email: string;
  firstName: string;
  password: string;
}

/** E-mail addresses compare without case or surrounding spaces. */
export function normaliseEmail(raw: string): string {
  // NFC first: "é" typed as one character or as "e" and an accent is one address (one account), not two that
  // look the same to the members of a group.
  return raw.trim().normalize('NFC').toLowerCase();
}

/**
 * Characters an address can hold without showing them (controls, direction overrides, zero-width and other
 * invisible ones): "vera@example.com" with one is another account that looks the same in a group's members.
 */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}\u2800]/u;

export const isEmail = (email: string) => email.length <= 254 && !HIDDEN.test(email) && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email);

/**
 * The accounts of the built-in sign-in. An account's id is its OpenID subject (random, so the app's identity
 * link never derives from an e-mail). Its e-mail is found by a keyed hash and, like its first name, stored
 * encrypted with a key of its own in the key store: removing the account deletes its rows (password hash,
 * passkeys, reset links) and destroys that key.
 */
export class LocalAccounts {
  readonly passkeys: Passkeys;

  constructor(
    readonly store: AccountStore,
    private readonly keys: KeyStore,
    private readonly lookup: LookupHash,
    publicUrl: string,
  ) {
    this.passkeys = new Passkeys(store, publicUrl);
  }

  private emailHash(email: string): string {
    return this.lookup('email', normaliseEmail(email));
  }

  /** The new account's id, or null when the e-mail has an account already (nothing is changed then). */
  async create(account: NewAccount, now = new Date()): Promise<string | null> {
    const email = normaliseEmail(account.email);
    const emailHash = this.emailHash(email);
    const passwordHash = await hashPassword(account.password);
    if (this.store.byEmailHash(emailHash)) return null;
    const id = randomBytes(16).toString('base64url');
    const key = await this.keys.keyFor(id);
    if (!key) throw new Error('A new account found its key destroyed');
    const inserted = this.store.insert({
      id,
      emailHash,
      email: encryptField(key, id, 'email', email)!,
      firstName: encryptField(key, id, 'firstName', account.firstName)!,
      passwordHash,
      createdAt: now.toISOString(),
    });
    if (!inserted) {
      await this.keys.destroy(id); // lost a race for the same e-mail: the other account stands
      return null;
    }
    return id;
  }

  /** The account id when the password is right. Unknown e-mails take as long as known ones (no enumeration). */
  async authenticate(email: string, password: string): Promise<string | null> {
    const account = this.store.byEmailHash(this.emailHash(email));
    return (await checkPassword(account?.passwordHash ?? null, password)) ? account!.id : null;
  }

  /** Which account an e-mail would sign in to (for the throttle and the operator's commands); null when none. */
  idOf(email: string): string | null {
    return this.store.byEmailHash(this.emailHash(email))?.id ?? null;
  }

  /** The throttle's key for an e-mail, whether or not it has an account (so guessing at one costs the same). */
  throttleKey(email: string): string {
    return `account:${this.emailHash(email)}`;
  }

  /** The throttle's key of an account, by its id (a new password clears its wrong ones). */
  throttleKeyOf(id: string): string {
    return `account:${this.store.byId(id)?.emailHash ?? id}`;
  }

  /** The claims the provider hands to the app; null for an account that does not exist (or no longer). */
  async profile(id: string): Promise<{ email: string | null; firstName: string | null } | null> {
    const account = this.store.byId(id);
    if (!account) return null;
    const key = await this.keys.existingKey(id);
    return { email: decryptField(key, id, 'email', account.email), firstName: decryptField(key, id, 'firstName', account.firstName) };
  }

  /** Removes the account for good: its password and passkeys no longer sign in, its e-mail is unreadable. */
  async remove(id: string): Promise<void> {
    this.store.remove(id);
    await this.keys.destroy(id);
  }

  /** A one-time reset token for the account of an e-mail (the operator prints it as a link); null when none. */
  createResetToken(email: string, now = Date.now()): string | null {
    const id = this.idOf(email);
    if (!id) return null;
    const token = randomBytes(32).toString('base64url');
    this.store.addResetToken(tokenHash(token), id, now + RESET_LINK_TTL_MS);
    return token;
  }

  isLiveResetToken(token: string): boolean {
    return this.store.resetTokenAccount(tokenHash(token)) !== null;
  }

  /**
   * The account's credentials as they stand: when its password was last reset (ms since the epoch), 0 when never. A
   * sign-in notes it when it checks the password or passkey, and stands only while it has not changed.
   */
  credentialsVersion(id: string): number {
    return this.store.credentialsChangedAt(id) ?? 0;
  }

  /** Sets a new password through a reset token and uses the token up; the account id, or null for a dead token. */
  async resetPassword(token: string, password: string): Promise<string | null> {
    if (!this.isLiveResetToken(token)) return null;
    return this.store.resetPassword(tokenHash(token), await hashPassword(password));
  }
}

/** Reset tokens are stored hashed: a copy of accounts.sqlite holds no usable link. */
const tokenHash = (token: string) => createHash('sha256').update(token).digest('base64url');
