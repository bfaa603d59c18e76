/**
 * DNS answer times as a Prometheus histogram that accepts whole bucket counts: a DNS
 * thread bins its queries' answer times itself and reports a dozen numbers per interval,
 * so the main thread does nothing per query (prom-client's Histogram takes one
 * observation at a time). Exposed under the same name and shape as before.
 */
import type { Metrics } from '../shared/metrics';

/** Upper bounds in seconds. */
export const ANSWER_TIME_BUCKETS = [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.01] as const;

/** Answer times binned by ANSWER_TIME_BUCKETS: one count per bucket, then those above the last. */
export class AnswerTimeBins {
  counts = new Float64Array(ANSWER_TIME_BUCKETS.length + 1);
  sum = 0;
  total = 0;

  /** `n` answers (a UDP batch sent together) that each took `seconds`. */
  observe(seconds: number, n = 1): void {
    let i = 0;
    while (i < ANSWER_TIME_BUCKETS.length && seconds > ANSWER_TIME_BUCKETS[i]) i++;
    this.counts[i] += n;
    this.sum += seconds * n;
    this.total += n;
  }

  add(other: { counts: ArrayLike<number>; sum: number; total: number }): void {
    for (let i = 0; i < this.counts.length; i++) this.counts[i] += other.counts[i];
    this.sum += other.sum;
    this.total += other.total;
  }
}

const NAME = 'dns_answer_duration_seconds';

/** The process's answer-time histogram in /metrics (registered once per registry). */
export function answerTimeHistogram(metrics: Metrics): AnswerTimeBins {
  const existing = metrics.registry.getSingleMetric(NAME) as unknown as { bins?: AnswerTimeBins } | undefined;
  if (existing?.bins) return existing.bins;
  const bins = new AnswerTimeBins();
  metrics.registry.registerMetric({
    name: NAME,
    bins,
    get: async () => {
      let cumulative = 0;
      const buckets = ANSWER_TIME_BUCKETS.map((le, i) => ({
        labels: { le },
        value: (cumulative += bins.counts[i]),
        metricName: `${NAME}_bucket`,
      }));
      return {
        name: NAME,
        help: 'Time from receiving a DNS query to handing its answer to the socket',
        type: 'histogram',
        aggregator: 'sum',
        values: [
          ...buckets,
          { labels: { le: '+Inf' }, value: bins.total, metricName: `${NAME}_bucket` },
          { labels: {}, value: bins.sum, metricName: `${NAME}_sum` },
          { labels: {}, value: bins.total, metricName: `${NAME}_count` },
        ],
      };
    },
    reset: () => {
      bins.counts.fill(0);
      bins.sum = 0;
      bins.total = 0;
    },
  } as unknown as Parameters<Metrics['registry']['registerMetric']>[0]);
  return bins;
}
