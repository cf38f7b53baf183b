import { Module } from '@nestjs/common';
import { HealthController } from './health.controller';
import { InstallController } from './install.controller';

@Module({ controllers: [HealthController, InstallController] })
export class OpsModule {}
