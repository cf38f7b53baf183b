import { DomainError } from '@joy/domain';
import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, UseGuards } from '@nestjs/common';
import type { RegistrationResponseJSON } from '@simplewebauthn/server';
import { IsDefined, IsObject } from 'class-validator';
import { LOCAL_ACCOUNTS } from '../../app.tokens';
import { EVENT_STORE, type EventStore } from '../../event-store/event-store.port';
import { userStreamCodec } from '../accounts';
import { identityDecider } from '../identity.decider';
import { KEY_STORE, type KeyStore } from '../key-store';
import { CurrentUser, type SessionUser, SignedInGuard } from '../signed-in.guard';
import type { LocalAccounts } from './local-accounts';
import type { PasskeyView } from './passkeys';
import { NoBodyDto } from '../../http/no-body.dto';

export class RegisterPasskeyDto {
  /** The browser's answer (startRegistration of @simplewebauthn/browser), checked by @simplewebauthn/server. */
  @IsObject({ message: 'response must be an object' }) @IsDefined({ message: 'response is required' }) response!: Record<string, unknown>;
}

export const PASSKEY_MESSAGES = {
  unavailable: 'Passkeys are for accounts of this install\'s own sign-in (e-mail and password).',
  notVerified: 'The passkey could not be verified. Please try again.',
  notFound: 'There is no such passkey on your account.',
} as const;

/** GET /api/account/passkeys */
export interface PasskeysView {
  /** Whether the signed-in person can have passkeys (an account of the built-in sign-in). */
  available: boolean;
  passkeys: PasskeyView[];
}

/** The signed-in person's passkeys (Account page): list, add (a WebAuthn registration), remove. */
@Controller('account/passkeys')
@UseGuards(SignedInGuard)
export class PasskeysController {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(KEY_STORE) private readonly keys: KeyStore,
    @Inject(LOCAL_ACCOUNTS) private readonly accounts: LocalAccounts | null,
  ) {}

  /** The built-in sign-in's account the person signs in with (its id is their subject), or null. */
  private async accountOf(userId: string): Promise<string | null> {
    if (!this.accounts) return null;
    const codec = userStreamCodec(await this.keys.existingKey(userId));
    const state = (await this.store.readStream(`user-${userId}`)).map(codec.upcast).reduce(identityDecider.evolve, identityDecider.initialState);
    const subject = state.registered && !state.deleted ? state.subject : null;
    return subject && this.accounts.store.byId(subject) ? subject : null;
  }

  private async requireAccount(userId: string): Promise<{ accounts: LocalAccounts; accountId: string }> {
    const accountId = await this.accountOf(userId);
    if (!accountId || !this.accounts) throw new DomainError('passkey.unavailable', PASSKEY_MESSAGES.unavailable);
    return { accounts: this.accounts, accountId };
  }

  @Get()
  async list(@CurrentUser() user: SessionUser): Promise<PasskeysView> {
    const accountId = await this.accountOf(user.id);
    return { available: accountId !== null, passkeys: accountId ? this.accounts!.passkeys.list(accountId) : [] };
  }

  /** The options of a registration (a challenge for this account, valid five minutes). */
  @Post('options')
  @HttpCode(200)
  async options(@CurrentUser() user: SessionUser, @Body() _body: NoBodyDto) {
    const { accounts, accountId } = await this.requireAccount(user.id);
    const profile = await accounts.profile(accountId);
    const label = profile?.email ?? 'Joy account';
    // The name an authenticator shows beside the e-mail when it lists its passkeys.
    return accounts.passkeys.registrationOptions(accountId, label, profile?.firstName || label);
  }

  @Post()
  @HttpCode(201)
  async register(@CurrentUser() user: SessionUser, @Body() body: RegisterPasskeyDto): Promise<PasskeyView> {
    const { accounts, accountId } = await this.requireAccount(user.id);
    const added = await accounts.passkeys.register(accountId, body.response as unknown as RegistrationResponseJSON);
    if (!added) throw new DomainError('passkey.not_verified', PASSKEY_MESSAGES.notVerified, [{ field: 'response', message: PASSKEY_MESSAGES.notVerified }]);
    return added;
  }

  @Delete(':id')
  @HttpCode(204)
  async remove(@CurrentUser() user: SessionUser, @Param('id') id: string, @Body() _body: NoBodyDto): Promise<void> {
    const { accounts, accountId } = await this.requireAccount(user.id);
    if (!accounts.passkeys.remove(accountId, id)) throw new DomainError('passkey.not_found', PASSKEY_MESSAGES.notFound);
  }
}
