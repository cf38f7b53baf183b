import { Logger } from '@nestjs/common';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startWorker } from './worker';
import { freePort } from './bench/app-process';

jest.setTimeout(20_000);
Logger.overrideLogger(false);


describe('worker entry point', () => {
  it('runs the pipeline without the HTTP API and serves GET /health with the health report', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'joy-worker-'));
    const port = await freePort();
    // ROLE=worker needs shared read models (MONGO_URL); on the embedded stores the worker runs as 'all'.
    const worker = await startWorker({ ROLE: 'all', PORT: String(port), DATA_DIR: dataDir });
    try {
      const res = await fetch(`http://127.0.0.1:${port}/health`);
      expect(res.status).toBe(200);
      const report = await res.json();
      expect(report.status).toBe('ok');
      expect(report.projections.map((p: { state: string }) => p.state)).toEqual(report.projections.map(() => 'running'));
      expect((await fetch(`http://127.0.0.1:${port}/api/health`)).status).toBe(404);
    } finally {
      await worker.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
    await expect(fetch(`http://127.0.0.1:${port}/health`)).rejects.toThrow();
  });

  it('refuses ROLE=api', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'joy-worker-api-'));
    try {
      await expect(startWorker({ ROLE: 'api', MONGO_URL: 'mongodb://127.0.0.1:1/x', DATA_DIR: dataDir })).rejects.toThrow(/main\.js/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
