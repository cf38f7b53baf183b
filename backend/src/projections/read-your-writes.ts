/**
 * Read-your-writes, the port features depend on: a command answers once the read models show what it wrote.
 * `waitFor` resolves when every projection that handles one of `eventTypes` (every projection, without them)
 * has applied the event at `position`, or after `timeoutMs` (5 s by default) without them: the write itself is
 * stored either way, so the command answers that it is (the read models show it once they catch up).
 * The projection pipeline implements it; features never see the pipeline.
 */
export interface ReadYourWrites {
  waitFor(position: number, options?: { eventTypes?: readonly string[]; timeoutMs?: number }): Promise<void>;
}

export const READ_YOUR_WRITES = 'ReadYourWrites';
