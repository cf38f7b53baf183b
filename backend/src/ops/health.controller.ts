import { Controller, Get, Inject, Res } from '@nestjs/common';
import type { Response } from 'express';
import { PIPELINE } from '../app.tokens';
import { EVENT_STORE, type EventStore } from '../event-store/event-store.port';
import type { ProjectionPipeline } from '../projections/projection-pipeline';
import { JOB_QUEUE, type JobQueue } from '../queue/queue.port';
import { READ_MODELS, type ReadModelStore } from '../read-models/read-model-store.port';
import { healthReport } from './health';

@Controller('health')
export class HealthController {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(READ_MODELS) private readonly readModels: ReadModelStore,
    @Inject(JOB_QUEUE) private readonly queue: JobQueue,
    @Inject(PIPELINE) private readonly pipeline: ProjectionPipeline,
  ) {}

  /** 200 when every backend answers and no projection has stopped, 503 otherwise. */
  @Get()
  async health(@Res() res: Response): Promise<void> {
    const report = await healthReport({ store: this.store, readModels: this.readModels, queue: this.queue, pipeline: this.pipeline });
    res.status(report.status === 'ok' ? 200 : 503).json(report);
  }
}
