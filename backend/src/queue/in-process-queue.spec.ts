import { InProcessQueue } from './in-process-queue';
import { describeQueueConformance } from './queue.conformance';

describeQueueConformance('in process', async () => ({ queue: new InProcessQueue(), cleanup: async () => undefined }));

describe('InProcessQueue specifics', () => {
  it('drains a large backlog with immediately settling handlers', async () => {
    const queue = new InProcessQueue();
    let last = -1;
    let inOrder = true;
    const consumer = queue.consume<number>('q', async (job) => {
      if (job.payload !== last + 1) inOrder = false;
      last = job.payload;
    });
    await queue.add(
      'q',
      Array.from({ length: 5000 }, (_, i) => ({ id: `j${i}`, payload: i })),
    );
    while (consumer.status().processed < 5000) await new Promise((r) => setTimeout(r, 5));
    expect(inOrder).toBe(true);
    expect(await queue.backlog('q')).toBe(0);
    await queue.close();
  });

  it('refuses a second running consumer on one queue', async () => {
    const queue = new InProcessQueue();
    queue.consume('q', async () => undefined);
    expect(() => queue.consume('q', async () => undefined)).toThrow(/already/);
    await queue.close();
  });
});
