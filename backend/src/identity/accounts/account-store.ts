import Database from 'better-sqlite3';

/** What is stored of an account of the built-in sign-in. The e-mail and name are ciphertext (see LocalAccounts). */
export interface AccountRow {
  id: string;
  emailHash: string;
  email: string;
  firstName: string;
  passwordHash: string;
  createdAt: string;
}

export interface PasskeyRow {
  credentialId: string;
  accountId: string;
  publicKey: Buffer;
  counter: number;
  transports: string[];
  createdAt: string;
}

/**
 * `accounts.sqlite` in DATA_DIR: the built-in sign-in's accounts, passkeys and one-time reset links. Unlike the
 * events, these rows are deleted for good with the account (secure_delete, rollback journal: no old page of a
 * password hash is left in a free page or a log). Nothing in it is plaintext personal data: the e-mail is found by
 * its keyed hash and stored encrypted, reset tokens are stored hashed.
 */
export class AccountStore {
  private readonly db: Database.Database;
  private readonly stmt;

  constructor(file: string) {
    this.db = new Database(file);
    this.db.pragma('journal_mode = DELETE');
    this.db.pragma('secure_delete = ON');
    this.db.pragma('synchronous = FULL');
    this.db.pragma('busy_timeout = 5000');
    this.db.pragma('foreign_keys = ON');
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS accounts (
        id TEXT PRIMARY KEY, email_hash TEXT NOT NULL UNIQUE, email TEXT NOT NULL, first_name TEXT NOT NULL,
        password_hash TEXT NOT NULL, created_at TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS passkeys (
        credential_id TEXT PRIMARY KEY, account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        public_key BLOB NOT NULL, counter INTEGER NOT NULL, transports TEXT NOT NULL, created_at TEXT NOT NULL);
      CREATE INDEX IF NOT EXISTS passkeys_by_account ON passkeys(account_id);
      CREATE TABLE IF NOT EXISTS reset_tokens (
        token_hash TEXT PRIMARY KEY, account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE, expires_at INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS install (name TEXT PRIMARY KEY, value TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS credential_changes (
        account_id TEXT PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE, changed_at INTEGER NOT NULL);
    `);
    this.stmt = {
      insert: this.db.prepare(
        'INSERT INTO accounts (id, email_hash, email, first_name, password_hash, created_at) VALUES (@id, @emailHash, @email, @firstName, @passwordHash, @createdAt) ON CONFLICT(email_hash) DO NOTHING',
      ),
      byEmailHash: this.db.prepare<[string], RawAccount>('SELECT * FROM accounts WHERE email_hash = ?'),
      byId: this.db.prepare<[string], RawAccount>('SELECT * FROM accounts WHERE id = ?'),
      setPassword: this.db.prepare('UPDATE accounts SET password_hash = ? WHERE id = ?'),
      remove: this.db.prepare('DELETE FROM accounts WHERE id = ?'),
      addPasskey: this.db.prepare(
        'INSERT INTO passkeys (credential_id, account_id, public_key, counter, transports, created_at) VALUES (?, ?, ?, ?, ?, ?)',
      ),
      passkey: this.db.prepare<[string], RawPasskey>('SELECT * FROM passkeys WHERE credential_id = ?'),
      passkeysOf: this.db.prepare<[string], RawPasskey>('SELECT * FROM passkeys WHERE account_id = ? ORDER BY created_at'),
      setCounter: this.db.prepare('UPDATE passkeys SET counter = ? WHERE credential_id = ?'),
      removePasskey: this.db.prepare('DELETE FROM passkeys WHERE credential_id = ? AND account_id = ?'),
      removePasskeysOf: this.db.prepare('DELETE FROM passkeys WHERE account_id = ?'),
      addToken: this.db.prepare('INSERT INTO reset_tokens (token_hash, account_id, expires_at) VALUES (?, ?, ?)'),
      token: this.db.prepare<[string, number], { account_id: string }>('SELECT account_id FROM reset_tokens WHERE token_hash = ? AND expires_at > ?'),
      removeToken: this.db.prepare('DELETE FROM reset_tokens WHERE token_hash = ?'),
      removeTokensOf: this.db.prepare('DELETE FROM reset_tokens WHERE account_id = ?'),
      sweepTokens: this.db.prepare('DELETE FROM reset_tokens WHERE expires_at <= ?'),
      credentialsChanged: this.db.prepare(
        'INSERT INTO credential_changes (account_id, changed_at) VALUES (?, ?) ON CONFLICT(account_id) DO UPDATE SET changed_at = excluded.changed_at',
      ),
      credentialsChangedAt: this.db.prepare<[string], number>('SELECT changed_at FROM credential_changes WHERE account_id = ?').pluck(),
    };
  }

  /**
   * The issuer these accounts' identity links are keyed by: the built-in provider's address at the first start
   * that kept it (`current` then), kept however PUBLIC_URL changes since. Keyed by the address of the day, every
   * account was a new, empty one after a move of host, port or scheme (a review, 11-27).
   */
  linkIssuer(current: string): string {
    this.db.prepare("INSERT INTO install (name, value) VALUES ('link-issuer', ?) ON CONFLICT(name) DO NOTHING").run(current);
    return this.db.prepare<[], string>("SELECT value FROM install WHERE name = 'link-issuer'").pluck().get()!;
  }

  /** false when an account with this e-mail hash exists already (nothing is written). */
  insert(row: AccountRow): boolean {
    return this.stmt.insert.run(row).changes === 1;
  }

  byEmailHash(emailHash: string): AccountRow | null {
    return toAccount(this.stmt.byEmailHash.get(emailHash));
  }

  byId(id: string): AccountRow | null {
    return toAccount(this.stmt.byId.get(id));
  }

  setPassword(id: string, passwordHash: string): void {
    this.stmt.setPassword.run(passwordHash, id);
  }

  /** The account, its passkeys and its reset links. */
  remove(id: string): void {
    this.stmt.remove.run(id);
  }

  addPasskey(row: PasskeyRow): void {
    this.stmt.addPasskey.run(row.credentialId, row.accountId, row.publicKey, row.counter, JSON.stringify(row.transports), row.createdAt);
  }

  passkey(credentialId: string): PasskeyRow | null {
    const row = this.stmt.passkey.get(credentialId);
    return row ? toPasskey(row) : null;
  }

  passkeysOf(accountId: string): PasskeyRow[] {
    return this.stmt.passkeysOf.all(accountId).map(toPasskey);
  }

  setCounter(credentialId: string, counter: number): void {
    this.stmt.setCounter.run(counter, credentialId);
  }

  removePasskey(accountId: string, credentialId: string): boolean {
    return this.stmt.removePasskey.run(credentialId, accountId).changes === 1;
  }

  addResetToken(tokenHash: string, accountId: string, expiresAt: number): void {
    this.stmt.sweepTokens.run(Date.now());
    this.stmt.addToken.run(tokenHash, accountId, expiresAt);
  }

  /** When the account's password was last reset (ms since the epoch); null when never. */
  credentialsChangedAt(accountId: string): number | null {
    return this.stmt.credentialsChangedAt.get(accountId) ?? null;
  }

  /** The account a live reset token belongs to (without using it up). */
  resetTokenAccount(tokenHash: string): string | null {
    return this.stmt.token.get(tokenHash, Date.now())?.account_id ?? null;
  }

  /**
   * Sets the new password and removes every reset link of the account, in one transaction, noting when: a sign-in
   * made before then signs nobody in (credentialsChangedAt).
   */
  resetPassword(tokenHash: string, passwordHash: string, now = Date.now()): string | null {
    return this.db.transaction(() => {
      const accountId = this.resetTokenAccount(tokenHash);
      if (!accountId) return null;
      this.stmt.setPassword.run(passwordHash, accountId);
      this.stmt.credentialsChanged.run(accountId, now);
      this.stmt.removeTokensOf.run(accountId);
      // A reset is for someone who lost the way in, or whose address someone else signed up with: no other way
      // in stays (the sessions end too: built-in-provider.ts).
      this.stmt.removePasskeysOf.run(accountId);
      return accountId;
    })();
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}

interface RawAccount {
  id: string;
  email_hash: string;
  email: string;
  first_name: string;
  password_hash: string;
  created_at: string;
}

interface RawPasskey {
  credential_id: string;
  account_id: string;
  public_key: Buffer;
  counter: number;
  transports: string;
  created_at: string;
}

function toAccount(row: RawAccount | undefined): AccountRow | null {
  if (!row) return null;
  return { id: row.id, emailHash: row.email_hash, email: row.email, firstName: row.first_name, passwordHash: row.password_hash, createdAt: row.created_at };
}

function toPasskey(row: RawPasskey): PasskeyRow {
  return {
    credentialId: row.credential_id,
    accountId: row.account_id,
    publicKey: row.public_key,
    counter: row.counter,
    transports: JSON.parse(row.transports) as string[],
    createdAt: row.created_at,
  };
}
