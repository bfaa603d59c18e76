import { Metrics } from '../metrics';

/**
 * Metrics for the specs of one file, closed once they have run: a Metrics starts prom-client's
 * GC observer and an event-loop monitor (decision 0101), which would keep the registry alive.
 */
export function specMetrics(): () => Metrics {
  const made: Metrics[] = [];
  afterAll(() => {
    for (const metrics of made) metrics.close();
  });
  return () => {
    const metrics = new Metrics();
    made.push(metrics);
    return metrics;
  };
}
