import { Worker } from 'node:worker_threads';
import type { Metrics } from '../../shared/metrics';
import { compiledWorkerScript } from '../../shared/worker-script';
import type { LoggedQuery } from './query-batch';
import { DROPPED, newControl, QueryLogChannel, type QueryLogEndpoint } from './query-log-channel';
import { newQueryRing, ringBacklog, ringClosed, type QueryRing } from './query-ring';
import type { QueryLogCommand, QueryLogReport, QueryLogTarget, QueryLogThreadData } from './query-log-thread.protocol';
import type { QueryLogWriterOptions } from './query-log-writer';
import { queryLogNice } from './thread-priority';

export const queryLogThreadScript = (): string | null => compiledWorkerScript(__dirname, 'query-log-thread');

/** The query-log pipeline as the rest of the process sees it, wherever it runs. */
export interface QueryLogPipeline {
  record(q: LoggedQuery): void;
  /** Everything recorded so far is in the store once this resolves. */
  flush(): Promise<void>;
  close(): Promise<void>;
  readonly dropped: number;
  /** A channel for a DNS thread to post to the log directly; absent when the log runs on this thread. */
  openChannel?(): QueryLogEndpoint;
}

/**
 * The main thread's handle on the query-log thread (query-log-thread.ts). DNS threads get
 * a ring of their own (openChannel) that the log thread drains;
 * queries answered on this thread (inline DNS) go through a channel of this thread. The
 * main thread keeps only the counters /metrics shows.
 */
/**
 * The thread's young generation, as the DNS threads' and the read-model writer's: V8's default
 * lets a busy thread commit tens of MB of short-lived garbage it rarely gives back.
 */
const QUERY_LOG_THREAD_YOUNG_GENERATION_MB = 16;

export class ThreadedQueryLog implements QueryLogPipeline {
  private local: QueryLogChannel | null = null;
  /** Every ring handed out and not finished, for the backlog gauge. */
  private readonly rings = new Set<QueryRing>();
  private written = 0;
  private writerDropped = 0;
  private writerPending = 0;
  private nextFlush = 0;
  private readonly flushes = new Map<number, () => void>();
  /** Set once close() began: resolves it when the thread reports it closed (or exits). */
  private closing: (() => void) | null = null;
  /** The thread is gone (closed or crashed): nothing waits for it any more. */
  private exited = false;

  private constructor(
    private readonly worker: Worker,
    private readonly control: Int32Array,
  ) {}

  static start(
    script: string,
    target: QueryLogTarget,
    metrics: Metrics,
    onError: (message: string) => void,
    writer?: QueryLogWriterOptions,
  ): Promise<ThreadedQueryLog> {
    const control = newControl();
    const data: QueryLogThreadData = { target, control, writer, nice: queryLogNice() };
    const worker = new Worker(script, {
      workerData: data,
      resourceLimits: { maxYoungGenerationSizeMb: QUERY_LOG_THREAD_YOUNG_GENERATION_MB },
    });
    const log = new ThreadedQueryLog(worker, control);
    const written = metrics.counter('dns_query_log_written_total', 'Answered DNS queries written to the query log');
    metrics.gauge(
      'dns_query_log_dropped_total',
      'Answered DNS queries the query log dropped because its queue was full',
      (g) => g.set(log.dropped),
    );
    metrics.gauge('dns_query_log_backlog', 'Answered DNS queries on their way to the query log', (g) =>
      g.set(log.backlog),
    );
    return new Promise((resolve, reject) => {
      worker.on('message', (m: QueryLogReport) => {
        switch (m.type) {
          case 'ready':
            return resolve(log);
          case 'failed':
            reject(new Error(m.error));
            return void worker.terminate();
          case 'stats':
            written.inc(m.written - log.written);
            log.written = m.written;
            log.writerDropped = m.dropped;
            log.writerPending = m.pending;
            return;
          case 'flushed':
            log.flushes.get(m.id)?.();
            log.flushes.delete(m.id);
            return;
          case 'error':
            return onError(m.error);
          case 'closed':
            return log.closing?.();
        }
      });
      worker.on('error', (err) => {
        onError(`query log thread failed: ${err.message}`);
        reject(err);
      });
      worker.on('exit', () => {
        // Answering threads see the backlog never shrink and drop (counted) from then on.
        if (!log.closing) onError('query log thread exited; answered queries are dropped (and counted) from now on');
        log.exited = true;
        for (const done of log.flushes.values()) done();
        log.closing?.();
      });
    });
  }

  openChannel(): QueryLogEndpoint {
    const ring = newQueryRing();
    this.rings.add(ring);
    this.worker.postMessage({ type: 'ring', ring } satisfies QueryLogCommand);
    return { ring, control: this.control };
  }

  /** Queries answered on this thread (DNS inline): encoded and posted like a DNS thread's. */
  record(q: LoggedQuery): void {
    if (this.closing) return;
    this.local ??= new QueryLogChannel(this.openChannel());
    this.local.record(q);
  }

  get dropped(): number {
    return Atomics.load(this.control, DROPPED) + this.writerDropped;
  }

  get backlog(): number {
    let inRings = 0;
    for (const ring of this.rings) {
      const waiting = ringBacklog(ring);
      if (waiting === 0 && ringClosed(ring)) this.rings.delete(ring);
      inRings += waiting;
    }
    return inRings + this.writerPending;
  }

  flush(): Promise<void> {
    if (this.exited) return Promise.resolve();
    const id = this.nextFlush++;
    return new Promise((resolve) => {
      this.flushes.set(id, resolve);
      this.worker.postMessage({ type: 'flush', id } satisfies QueryLogCommand);
    });
  }

  async close(): Promise<void> {
    if (this.closing || this.exited) return;
    this.local?.close();
    await new Promise<void>((resolve) => {
      this.closing = resolve;
      this.worker.postMessage({ type: 'close' } satisfies QueryLogCommand);
    });
    await this.worker.terminate();
  }
}
