import { Module } from '@nestjs/common';
import { PasskeysController } from './accounts/passkeys.controller';
import { IdentityController } from './identity.controller';
import { SignInService } from './sign-in.service';

@Module({ controllers: [IdentityController, PasskeysController], providers: [SignInService], exports: [SignInService] })
export class IdentityModule {}
