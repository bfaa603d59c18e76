/** What the main thread and the query-log thread (query-log-thread.ts) say to each other. */
import type { QueryRing } from './query-ring';
import type { QueryLogWriterOptions } from './query-log-writer';

/**
 * The writer as the query-log thread runs it: bigger, rarer batches than on the main thread
 * (where a batch holds the event loop). A batch makes one block per account-domain in it,
 * so with traffic spread over many domains bigger batches mean fewer, fuller blocks: over
 * 1,000 domains, 9 µs CPU per row at 20,000 rows a batch against 23 µs at 2,000. Up to 65,536
 * (about a second at 80k qps): one SQLite transaction a second rather than five, a tenth less
 * of the thread's CPU than 16,384 (bench:query-log-thread). Rows reach the store within a
 * second (rollups every 2 s as before).
 */
export const THREAD_WRITER: QueryLogWriterOptions = { maxBatch: 65_536, flushIntervalMs: 1000 };

/** Where the thread writes: the embedded SQLite file, or MongoDB through a client of its own. */
export type QueryLogTarget = { kind: 'sqlite'; file: string } | { kind: 'mongo'; url: string };

export interface QueryLogThreadData {
  target: QueryLogTarget;
  /** Shared counters, slots in query-log-channel.ts (DROPPED). */
  control: Int32Array;
  writer?: QueryLogWriterOptions;
  /** Niceness the thread takes for itself (thread-priority.ts); 0 leaves it as the process's. */
  nice?: number;
}

/** Main thread to log thread. */
export type QueryLogCommand =
  /** An answering thread's ring, to drain from now on (shared memory, not transferred). */
  { type: 'ring'; ring: QueryRing } | { type: 'flush'; id: number } | { type: 'close' };

/** Log thread to main thread. */
export type QueryLogReport =
  | { type: 'ready' }
  | { type: 'failed'; error: string }
  /** Cumulative counts of the thread's writer. */
  | { type: 'stats'; written: number; dropped: number; pending: number }
  | { type: 'flushed'; id: number }
  | { type: 'error'; error: string }
  | { type: 'closed' };
