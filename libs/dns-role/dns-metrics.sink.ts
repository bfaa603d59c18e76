import { Counter } from 'prom-client';
import type { QueryLogEndpoint } from '../dns-analytics/application/query-log-channel';
import type { AnsweredQuery, QuerySink } from '../dns-server';
import { Metrics } from '../shared/metrics';
import { answerTimeHistogram, type AnswerTimeBins } from './answer-times';
import type { QueryTallyReport } from './query-tally';

/** A sink that can give an answering thread a channel of its own (the threaded query log). */
interface ChannelledSink extends QuerySink {
  openChannel?(): QueryLogEndpoint;
}

/**
 * Counts every answered query for `/metrics` (by transport and rcode, with answer time),
 * then hands it on to the analytics sink when one is plugged in. Counting is two map
 * updates, cheap enough for the hot path; a DNS thread reports its counts in bulk.
 */
export class DnsMetricsSink implements QuerySink {
  private readonly queries: Counter<string>;
  private readonly durations: AnswerTimeBins;

  constructor(
    metrics: Metrics,
    private readonly next?: ChannelledSink,
  ) {
    this.queries = metrics.counter('dns_queries_total', 'DNS queries answered, by transport and rcode', [
      'transport',
      'rcode',
    ]);
    this.durations = answerTimeHistogram(metrics);
  }

  /** Whether anything beyond the metrics wants every query (a DNS thread then sends them all). */
  get forwardsQueries(): boolean {
    return this.next !== undefined;
  }

  /**
   * A channel for a DNS thread to send its queries straight to the query-log thread, or
   * null when the sink lives on this thread (the DNS thread then forwards them here).
   */
  openQueryChannel(): QueryLogEndpoint | null {
    return this.next?.openChannel?.() ?? null;
  }

  record(q: AnsweredQuery): void {
    this.queries.inc({ transport: q.transport, rcode: q.rcode });
    this.durations.observe(q.durationMs / 1000);
    this.next?.record(q);
  }

  recordTally(report: QueryTallyReport): void {
    for (const [transport, rcode, n] of report.counts) this.queries.inc({ transport, rcode }, n);
    this.durations.add(report.times);
  }

  /** A query already counted by its DNS thread: only the analytics sink gets it. */
  forward(q: AnsweredQuery): void {
    this.next?.record(q);
  }
}
