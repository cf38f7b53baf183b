import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { AccountDeletion } from './account-deletion';
import { AccountExport } from './account-export';
import { AccountImport } from './account-import';
import { AccountController } from './account.controller';
import { TimeZoneModule } from '../settings/time-zone';

/** The person's own data and account: export (JSON, CSV), import of ratings (JSON) and deletion (crypto-shredding). */
@Module({
  imports: [CqrsModule, TimeZoneModule],
  controllers: [AccountController],
  providers: [AccountExport, AccountImport, AccountDeletion],
})
export class AccountModule {}
