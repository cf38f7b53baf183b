import {
  BACKWARDS,
  END,
  FORWARDS,
  START,
  type AllStreamResolvedEvent,
  type EventStoreDBClient,
  type ReadAllOptions,
  type ReadPosition,
} from '@eventstore/db-client';
import type { RecordedEvent } from './event-store.port';
import { isInvalidPosition } from './eventstoredb-errors';
import { exactPosition, isSystemType, positionOf, toRecorded } from './eventstoredb-mappings';
import { readWithin } from './eventstoredb-deadlines';

/** Records read per request when paging through `$all`. */
const PAGE_MAX = 1_000;
/** Records read per request when looking for a valid start position (see `startAtOrBefore`). */
const SCAN_PAGE = 500;
/** Records read per request when looking for the head backwards. */
const HEAD_PAGE = 32;

/**
 * Reads of EventStoreDB's `$all` for the adapter: pages of non-system events after a commit position, the head,
 * and where a read or a subscription may start. `$all` holds system events (types starting with `$`); they are
 * never returned and never count as the head.
 */
export class AllStream {
  /** @param deadlineMs how long a page may take (see `readWithin`). */
  constructor(
    private readonly client: EventStoreDBClient,
    private readonly deadlineMs: number,
  ) {}

  /** Up to `limit` non-system events with a commit position above `after`. */
  async readAfter(after: bigint, limit: number): Promise<RecordedEvent[]> {
    if (after === 0n) return this.readFrom(START, after, limit);
    try {
      // The usual case: `after` is the position of an event (a page end, a checkpoint), a valid place to start.
      return await this.readFrom(exactPosition(after), after, limit);
    } catch (err) {
      if (!isInvalidPosition(err)) throw err;
    }
    return this.readFrom(await this.startAtOrBefore(after), after, limit);
  }

  /** The position of the last non-system event (0 when there is none). */
  async head(): Promise<number> {
    let cursor: ReadPosition = END;
    for (;;) {
      const page = await this.page({ direction: BACKWARDS, fromPosition: cursor, maxCount: HEAD_PAGE });
      for (const resolved of page) {
        const recorded = toRecorded(resolved);
        if (recorded && !isSystemType(recorded.type)) return recorded.position;
      }
      const last = page.length === HEAD_PAGE ? positionOf(page[page.length - 1]) : null;
      if (!last) return 0;
      cursor = last; // a backwards read excludes its start position
    }
  }

  /**
   * Where a read (or subscription) delivering the events after `after` may start. The usual case, `after` the
   * position of an event (a page end, a checkpoint), is one request; only when the server answers that it is not
   * the position of a record (EventStoreDB can only start at one) is the nearest earlier one looked for.
   */
  async startFor(after: bigint): Promise<ReadPosition> {
    if (after === 0n) return START;
    const exact = exactPosition(after);
    try {
      await this.page({ direction: FORWARDS, fromPosition: exact, maxCount: 1 });
      return exact;
    } catch (err) {
      if (!isInvalidPosition(err)) throw err;
    }
    return this.startAtOrBefore(after);
  }

  page(options: ReadAllOptions): Promise<AllStreamResolvedEvent[]> {
    return readWithin(this.client.readAll({ resolveLinkTos: false, ...options }), this.deadlineMs, 'read $all');
  }

  /** Up to `limit` non-system events with a commit position above `after`, reading forwards from `start`. */
  private async readFrom(start: ReadPosition, after: bigint, limit: number): Promise<RecordedEvent[]> {
    const events: RecordedEvent[] = [];
    // System events are interleaved (about one link event per system projection per event): read ahead.
    const pageSize = Math.min(PAGE_MAX, Math.max(64, limit * 4 + 1));
    let cursor = start;
    for (;;) {
      const page = await this.page({ direction: FORWARDS, fromPosition: cursor, maxCount: pageSize });
      for (const resolved of page) {
        const position = positionOf(resolved);
        if (!position || position.commit <= after) continue; // a forwards read includes its start position
        after = position.commit;
        const recorded = toRecorded(resolved);
        if (!recorded || isSystemType(recorded.type)) continue;
        events.push(recorded);
        if (events.length === limit) return events;
      }
      const last = page.length === pageSize ? positionOf(page[page.length - 1]) : null;
      if (!last) return events;
      cursor = last;
    }
  }

  /**
   * A valid read position at or before `target` with no record between it and `target`: the position of the
   * last record at or before `target`, or START. The scan runs from whichever end of the log is nearer.
   */
  private async startAtOrBefore(target: bigint): Promise<ReadPosition> {
    const lastPage = await this.page({ direction: BACKWARDS, fromPosition: END, maxCount: SCAN_PAGE });
    const end = lastPage.length > 0 ? positionOf(lastPage[0]) : null;
    if (!end) return START;
    if (target * 2n >= end.commit) {
      let page = lastPage;
      for (;;) {
        for (const resolved of page) {
          const position = positionOf(resolved);
          if (position && position.commit <= target) return position;
        }
        const last = page.length === SCAN_PAGE ? positionOf(page[page.length - 1]) : null;
        if (!last) return START;
        page = await this.page({ direction: BACKWARDS, fromPosition: last, maxCount: SCAN_PAGE });
      }
    }
    let best: ReadPosition = START;
    let cursor: ReadPosition = START;
    for (;;) {
      const page = await this.page({ direction: FORWARDS, fromPosition: cursor, maxCount: SCAN_PAGE });
      for (const resolved of page) {
        const position = positionOf(resolved);
        if (!position) continue;
        if (position.commit > target) return best;
        best = position;
      }
      const last = page.length === SCAN_PAGE ? positionOf(page[page.length - 1]) : null;
      if (!last) return best;
      cursor = last;
    }
  }
}
