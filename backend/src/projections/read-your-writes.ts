/**
 * Read-your-writes, the port features depend on: a command answers once the read models show what it wrote.
 * `waitFor` resolves when every projection that handles one of `eventTypes` (every projection, without them)
 * has applied the event at `position`; it rejects after `timeoutMs` (5 s by default; the write itself is durable
 * either way).
 * The projection pipeline implements it; features never see the pipeline.
 */
export interface ReadYourWrites {
  waitFor(position: number, options?: { eventTypes?: readonly string[]; timeoutMs?: number }): Promise<void>;
}

export const READ_YOUR_WRITES = 'ReadYourWrites';
