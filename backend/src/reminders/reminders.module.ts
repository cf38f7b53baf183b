import { Module } from '@nestjs/common';
import { PushController } from './push.controller';
import { PushSubscriptionsService } from './push.service';

/** Reminders: the Web Push endpoints (the scheduler runs with the pipeline, see reminder-scheduler.ts). */
@Module({
  controllers: [PushController],
  providers: [PushSubscriptionsService],
})
export class RemindersModule {}
