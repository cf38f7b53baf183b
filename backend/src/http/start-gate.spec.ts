import { startProgressLog } from './start-gate';

/** What an operator reads in the log while the read models are built. */
function logLines(heapLimitMib: number, events: number) {
  const lines: { level: 'log' | 'warn'; text: string }[] = [];
  const logger = { log: (text: string) => lines.push({ level: 'log', text }), warn: (text: string) => lines.push({ level: 'warn', text }) };
  const log = startProgressLog(logger, { everyMs: 0, heapLimitBytes: heapLimitMib * 2 ** 20 });
  log({ from: 0, position: 0, head: events, reset: [] });
  log({ from: 0, position: events / 2, head: events, reset: [] });
  log({ from: 0, position: events, head: events, reset: [] }, true);
  return lines;
}

describe('the progress log of a read-model build', () => {
  it('announces the build, draws its progress and ends with the time it took', () => {
    const lines = logLines(4096, 100_000);
    expect(lines[0].text).toMatch(/^Building the read models from 100,000 events \(no read models yet/);
    expect(lines.some((l) => l.text.startsWith('[###############---------------] 50% 50,000/100,000 events'))).toBe(true);
    expect(lines[lines.length - 1].text).toMatch(/100% 100,000\/100,000 events, [\d,]+ events\/s, done in [\d.]+ s$/);
    expect(lines.filter((l) => l.level === 'warn')).toEqual([]);
  });

  it('names the heap setting when the history is large for the heap limit (a build that runs out of memory says nothing useful)', () => {
    const warnings = logLines(512, 1_000_000).filter((l) => l.level === 'warn');
    expect(warnings).toHaveLength(1);
    expect(warnings[0].text).toContain('1,000,000 events may need more memory than this process\'s JavaScript heap limit (512 MiB)');
    expect(warnings[0].text).toContain('NODE_OPTIONS=--max-old-space-size=1024');
    expect(warnings[0].text).toContain('goes on from its last committed batch');
  });

  it('says nothing of memory for the same history when the heap is large enough', () => {
    expect(logLines(1024, 1_000_000).filter((l) => l.level === 'warn')).toEqual([]);
  });

  it('stays silent for a restart with little to do', () => {
    expect(logLines(256, 5_000)).toEqual([]);
  });
});
