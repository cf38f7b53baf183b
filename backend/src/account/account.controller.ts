import { DomainError, type ImportResultView } from '@joy/domain';
import { Body, Controller, Delete, Get, HttpCode, Logger, Post, Query, Req, Res, UseGuards } from '@nestjs/common';
import type { Request, Response } from 'express';
import { pipeline } from 'node:stream/promises';
import { SESSION_COOKIE } from '../identity/session';
import { CurrentUser, SignedInGuard } from '../identity/signed-in.guard';
import type { SessionUser } from '../identity/signed-in.guard';
import { AccountDeletion } from './account-deletion';
import { AccountExport, exportFileName, type ExportFormat } from './account-export';
import { AccountImport } from './account-import';
import { ACCOUNT_MESSAGES, DeleteAccountDto } from './account.dto';
import { UnreadableEventError } from '../event-store/event-store.port';

/** The person's own data: export it (JSON or CSV, streamed as a download), import ratings, or delete the account. */
@Controller('account')
@UseGuards(SignedInGuard)
export class AccountController {
  private readonly logger = new Logger('Account');

  constructor(
    private readonly exporter: AccountExport,
    private readonly importer: AccountImport,
    private readonly deletion: AccountDeletion,
  ) {}

  /** GET /api/account/export?format=json|csv → a file `joy-export-YYYY-MM-DD.json|csv`, written as it is read. */
  @Get('export')
  async export(@CurrentUser() user: SessionUser, @Query('format') format: unknown, @Res() res: Response): Promise<void> {
    if (format !== 'json' && format !== 'csv') throw new DomainError('account.export_format', ACCOUNT_MESSAGES.format, [{ field: 'format', message: ACCOUNT_MESSAGES.format }]);
    const kind: ExportFormat = format;
    res.status(200);
    res.setHeader('Content-Type', kind === 'json' ? 'application/json; charset=utf-8' : 'text/csv; charset=utf-8');
    res.setHeader('Content-Disposition', `attachment; filename="${exportFileName(kind)}"`);
    res.setHeader('Cache-Control', 'no-store');
    try {
      await pipeline(this.exporter.stream(user.id, kind), res);
    } catch (err) {
      // Headers are gone already: the download ends short, and the log says why (never what it contained).
      if (!res.writableEnded) res.destroy();
      // A damaged event's message names only the file, the position and the repair: the operator's to act on.
      this.logger.warn(`Export ended early: ${err instanceof UnreadableEventError ? err.message : (err as Error).name}`);
    }
  }

  /**
   * POST /api/account/import with the JSON export of this or another Joy install (up to 5 MB, see http/edge.ts) →
   * `{ imported, skipped }`. Any problem in the file: 400 naming its path (`ratings[3].health`), nothing added.
   */
  @Post('import')
  @HttpCode(200)
  import(@CurrentUser() user: SessionUser, @Body() body: unknown): Promise<ImportResultView> {
    return this.importer.import(user.id, body);
  }

  /**
   * DELETE /api/account `{ "confirm": "DELETE" }` → 204, signed out. 400 (nothing appended) without the word.
   * What happens is described in account-deletion.ts.
   */
  @Delete()
  @HttpCode(204)
  async delete(@CurrentUser() user: SessionUser, @Body() _body: DeleteAccountDto, @Req() req: Request, @Res() res: Response): Promise<void> {
    await this.deletion.delete(user.id);
    await new Promise<void>((resolve) => req.logout(() => resolve()));
    await new Promise<void>((resolve) => req.session.destroy(() => resolve()));
    res.clearCookie(SESSION_COOKIE, { path: '/' });
    res.status(204).end();
  }
}
