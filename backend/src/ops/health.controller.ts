import { Controller, Get, Inject, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { timingSafeEqual } from 'node:crypto';
import { APP_CONFIG, INFRASTRUCTURE } from '../app.tokens';
import type { AppConfig } from '../config';
import { sendApiError } from '../http/api-exception.filter';
import type { Infrastructure } from '../infrastructure';
import { healthReport, publicHealth } from './health';

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

/** The ops view is for this machine's operator: asked over loopback, carrying the ops token (DATA_DIR/ops-token). */
function isLocalOperator(req: Request, token: string): boolean {
  if (!LOOPBACK.has(req.socket.remoteAddress ?? '')) return false;
  const given = Buffer.from(/^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '');
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

@Controller('health')
export class HealthController {
  constructor(
    @Inject(INFRASTRUCTURE) private readonly infra: Infrastructure,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** 200 when every part answers and can write and no projection has stopped, 503 otherwise: which part, no counts. */
  @Get()
  async health(@Res() res: Response): Promise<void> {
    const report = await healthReport(this.infra);
    res.status(report.status === 'ok' ? 200 : 503).json(publicHealth(report));
  }

  /** The same with positions, lag and each projection (what `npm run projections -- status` prints): local operator only. */
  @Get('details')
  async details(@Req() req: Request, @Res() res: Response): Promise<void> {
    if (!isLocalOperator(req, this.config.opsToken)) {
      sendApiError(res, 'request.not_found', 'Not found');
      return;
    }
    const report = await healthReport(this.infra);
    res.status(report.status === 'ok' ? 200 : 503).json(report);
  }
}
