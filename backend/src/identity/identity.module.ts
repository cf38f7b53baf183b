import { Module } from '@nestjs/common';
import { IdentityController } from './identity.controller';
import { SignInService } from './sign-in.service';

@Module({ controllers: [IdentityController], providers: [SignInService], exports: [SignInService] })
export class IdentityModule {}
