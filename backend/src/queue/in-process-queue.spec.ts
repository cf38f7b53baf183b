import { InProcessQueue } from './in-process-queue';
import { describeQueueConformance } from './queue.conformance';
import { waitUntil } from '../testing/wait';

describeQueueConformance('in process', async () => {
  const queue = new InProcessQueue();
  return { queue, cleanup: async () => undefined, another: () => queue };
});

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
    await waitUntil(() => consumer.status().processed >= 5000);
    expect(inOrder).toBe(true);
    expect(await queue.backlog('q')).toBe(0);
    await queue.close();
  });

  it('a second consumer of one queue stands by until the first closes', async () => {
    const queue = new InProcessQueue();
    const first = queue.consume('q', async () => undefined);
    const second = queue.consume('q', async () => undefined);
    expect(first.status().state).toBe('running');
    expect(second.status().state).toBe('standby');
    await first.close();
    expect(second.status().state).toBe('running');
    await queue.close();
  });
});
