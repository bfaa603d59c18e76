import type { AnsweredQuery, QuerySink } from '../dns-server';

/** What a DNS thread reports of its answered queries for the metrics: counts and answer times. */
export interface QueryTallyReport {
  counts: Array<[transport: string, rcode: string, n: number]>;
  /** Answer times in seconds, one per query. */
  durations: Float64Array;
}

/**
 * Tallies answered queries where they are answered (the DNS thread), so the main thread
 * gets one small report every interval instead of an object per query.
 */
export class QueryTally implements QuerySink {
  private counts = new Map<string, [string, string, number]>();
  private durations: number[] = [];

  record(q: AnsweredQuery): void {
    const key = `${q.transport}|${q.rcode}`;
    const entry = this.counts.get(key);
    if (entry) entry[2]++;
    else this.counts.set(key, [q.transport, q.rcode, 1]);
    this.durations.push(q.durationMs / 1000);
  }

  /** The report since the last drain, or null when nothing was answered. */
  drain(): QueryTallyReport | null {
    if (this.durations.length === 0) return null;
    const report = { counts: [...this.counts.values()], durations: Float64Array.from(this.durations) };
    this.counts = new Map();
    this.durations = [];
    return report;
  }
}
