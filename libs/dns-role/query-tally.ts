import type { AnsweredQuery, QuerySink } from '../dns-server';
import { AnswerTimeBins } from './answer-times';

/** What a DNS thread reports of its answered queries for the metrics: counts and binned answer times. */
export interface QueryTallyReport {
  counts: Array<[transport: string, rcode: string, n: number]>;
  times: { counts: Float64Array; sum: number; total: number };
}

/**
 * Tallies answered queries where they are answered (the DNS thread), so the main thread
 * gets one small report every interval instead of anything per query.
 */
export class QueryTally implements QuerySink {
  /** By transport, then rcode: no key string built per query. */
  private counts = { udp: new Map<string, number>(), tcp: new Map<string, number>() };
  private times = new AnswerTimeBins();

  record(q: AnsweredQuery): void {
    const byRcode = this.counts[q.transport];
    byRcode.set(q.rcode, (byRcode.get(q.rcode) ?? 0) + 1);
    this.times.observe(q.durationMs / 1000);
  }

  /** The report since the last drain, or null when nothing was answered. */
  drain(): QueryTallyReport | null {
    if (this.times.total === 0) return null;
    const counts: QueryTallyReport['counts'] = [];
    for (const transport of ['udp', 'tcp'] as const) for (const [rcode, n] of this.counts[transport]) counts.push([transport, rcode, n]);
    const { counts: bins, sum, total } = this.times;
    this.counts = { udp: new Map(), tcp: new Map() };
    this.times = new AnswerTimeBins();
    return { counts, times: { counts: bins, sum, total } };
  }
}
