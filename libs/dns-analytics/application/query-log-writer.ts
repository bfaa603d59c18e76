import { BufferedQuerySink } from '../../dns-server';
import type { Metrics } from '../../shared/metrics';
import { accumulateHourly, expandRollups, type Rollup } from '../domain/rollup';
import type { QueryRows } from '../domain/query-rows';
import { deliveredRows, type Enricher } from './delivered-rows';
import { DeferredColumns, type LoggedQuery } from './query-batch';
import type { QueryLogStore } from './query-log.store';

/** Rollup buckets stored per transaction (one turn of the event loop). */
const ROLLUP_CHUNK = 256;

export interface QueryLogWriterOptions {
  maxBatch?: number;
  flushIntervalMs?: number;
  /** Queries waiting beyond this are dropped and counted: answers never wait for the log. */
  maxPending?: number;
  /** Rollup increments are merged in memory and stored at most this often. */
  rollupIntervalMs?: number;
}

/**
 * The query-log pipeline's sink: every answered query is handed to a bounded in-memory
 * queue (the DNS hot path does nothing else), then enriched, attributed and written in
 * batches. Under backpressure the queue drops, and /metrics counts what it dropped.
 */
export class QueryLogWriter {
  private readonly buffer: BufferedQuerySink<LoggedQuery | DeferredColumns>;
  /** Rows stored so far. */
  written = 0;
  private closed = false;
  private rollups = new Map<string, Rollup>();
  private rollupsDueAt = 0;
  private readonly rollupIntervalMs: number;
  private readonly rollupTimer: NodeJS.Timeout;

  constructor(
    private readonly store: QueryLogStore,
    private readonly enricher: Enricher,
    /** Null on the query-log thread: its owner reports the counts to the main thread's /metrics. */
    metrics: Metrics | null,
    onError: (err: unknown) => void,
    opts: QueryLogWriterOptions = {},
  ) {
    const written = metrics?.counter('dns_query_log_written_total', 'Answered DNS queries written to the query log');
    this.rollupIntervalMs = opts.rollupIntervalMs ?? 2000;
    this.buffer = new BufferedQuerySink(
      async (batch) => {
        await this.enricher.ready();
        const deliveries = deliveredRows(batch, this.enricher);
        for (let i = 0; i < deliveries.length; i++) {
          const rows = deliveries[i];
          accumulateHourly(this.rollups, rows);
          // A busy bucket is rewritten once per interval, not once per batch; the rows go in at once.
          // close() writes what is left once the queue is empty.
          if (i === deliveries.length - 1 && Date.now() >= this.rollupsDueAt) await this.writeRollups(rows);
          else await this.store.append(rows, []);
          this.written += rows.count;
          written?.inc(rows.count);
        }
      },
      {
        maxBatch: opts.maxBatch ?? 2000,
        flushIntervalMs: opts.flushIntervalMs ?? 250,
        maxPending: opts.maxPending ?? 200_000,
        onError,
      },
      (item) => (item instanceof DeferredColumns ? item.count : 1),
    );
    // Quiet periods too: what accumulated reaches the store within an interval.
    this.rollupTimer = setInterval(() => {
      if (this.rollups.size && Date.now() >= this.rollupsDueAt) void this.writeRollups([]).catch(onError);
    }, this.rollupIntervalMs);
    this.rollupTimer.unref();
    metrics?.gauge(
      'dns_query_log_dropped_total',
      'Answered DNS queries the query log dropped because its queue was full',
      (g) => g.set(this.buffer.dropped),
    );
  }

  /**
   * Stores the accumulated rollups (with `rows`). The next write is due after the interval,
   * or after ten times what this one took if that is longer: with thousands of busy buckets
   * rollups then cost the writer at most a tenth of its time, and rows keep flowing.
   */
  private async writeRollups(rows: QueryRows | readonly []): Promise<void> {
    const rollups = expandRollups(this.rollups.values());
    this.rollups = new Map();
    this.rollupsDueAt = Number.POSITIVE_INFINITY;
    const started = Date.now();
    try {
      // Each bucket is read, merged and rewritten: thousands of busy buckets in one
      // transaction would hold the event loop (DDNS answers, API) for 100 ms and more, so
      // they go in chunks with a turn of the loop between.
      await this.store.append(rows, rollups.slice(0, ROLLUP_CHUNK));
      for (let i = ROLLUP_CHUNK; i < rollups.length; i += ROLLUP_CHUNK) {
        await new Promise((resolve) => setImmediate(resolve));
        await this.store.append([], rollups.slice(i, i + ROLLUP_CHUNK));
      }
    } finally {
      this.rollupsDueAt = Date.now() + Math.max(this.rollupIntervalMs, 10 * (Date.now() - started));
    }
  }

  record(q: LoggedQuery): void {
    if (!this.closed) this.buffer.record(q);
  }

  /** A chunk drained from a ring, written as columns (delivered-rows.ts); dropped whole when the queue is full. */
  recordBatch(batch: DeferredColumns): void {
    if (!this.closed) this.buffer.record(batch);
  }

  /** Everything recorded so far, rows and rollups, is in the store once this resolves. */
  async flush(): Promise<void> {
    await this.buffer.flush();
    if (this.rollups.size) await this.writeRollups([]);
  }

  get dropped(): number {
    return this.buffer.dropped;
  }

  /** Queries recorded but not yet written. */
  get pending(): number {
    return this.buffer.pending;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.rollupTimer);
    await this.buffer.close();
    if (this.rollups.size) await this.writeRollups([]);
  }
}
