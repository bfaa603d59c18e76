import type { AnswerTally, Transport } from '../dns-server';
import { rcodeName } from '../dns-server/wire';
import { AnswerTimeBins } from './answer-times';

/** What a DNS thread reports of its answered queries for the metrics: counts and binned answer times. */
export interface QueryTallyReport {
  counts: Array<[transport: string, rcode: string, n: number]>;
  times: { counts: Float64Array; sum: number; total: number };
}

/** Rcodes are 4 bits, 16 with the extended BADVERS: one slot each, per transport. */
const RCODE_SLOTS = 32;
const TRANSPORTS = ['udp', 'tcp'] as const;

/**
 * Tallies answered queries where they are answered (the DNS thread), so the main thread
 * gets one small report every interval instead of anything per query. A count is one
 * array increment; answer times come per UDP batch.
 */
export class QueryTally implements AnswerTally {
  private readonly counts = new Float64Array(TRANSPORTS.length * RCODE_SLOTS);
  private times = new AnswerTimeBins();

  count(transport: Transport, rcode: number): void {
    this.counts[(transport === 'udp' ? 0 : RCODE_SLOTS) + (rcode & (RCODE_SLOTS - 1))]++;
  }

  observe(seconds: number, n: number): void {
    this.times.observe(seconds, n);
  }

  /** The report since the last drain, or null when nothing was answered. */
  drain(): QueryTallyReport | null {
    const counts: QueryTallyReport['counts'] = [];
    TRANSPORTS.forEach((transport, t) => {
      for (let rcode = 0; rcode < RCODE_SLOTS; rcode++) {
        const n = this.counts[t * RCODE_SLOTS + rcode];
        if (n > 0) counts.push([transport, rcodeName(rcode), n]);
      }
    });
    if (counts.length === 0 && this.times.total === 0) return null;
    this.counts.fill(0);
    const { counts: bins, sum, total } = this.times;
    this.times = new AnswerTimeBins();
    return { counts, times: { counts: bins, sum, total } };
  }
}
