import { Controller, Get, Inject } from '@nestjs/common';
import { APP_CONFIG } from '../app.tokens';
import { type AppConfig, optIns } from '../config';

/** GET /api/install: what every visitor may know of this install (the Demo banner), signed in or not. */
export interface InstallView {
  /** A production install with a development convenience on: the app shows a "Demo" banner. */
  demo: boolean;
  /** The conveniences that are on (AUTH_DEV_LOGIN, BILLING_SANDBOX). */
  optIns: string[];
}

@Controller('install')
export class InstallController {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  @Get()
  install(): InstallView {
    const on = optIns(this.config);
    return { demo: this.config.production && on.length > 0, optIns: on };
  }
}
