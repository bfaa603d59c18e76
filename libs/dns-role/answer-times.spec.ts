import { answerTimeHistogram } from './answer-times';
import { QueryTally } from './query-tally';
import { RCODE } from '../dns-server/wire';
import { specMetrics } from '../shared/testing/spec-metrics';

const newMetrics = specMetrics();

describe('answer times and counts tallied on the DNS thread', () => {
  it('reaches /metrics as one report: counts by transport and rcode, a cumulative histogram', async () => {
    const tally = new QueryTally();
    // One UDP batch of two answers sent together, another of one, one TCP answer.
    tally.count('udp', RCODE.NOERROR);
    tally.count('udp', RCODE.NOERROR);
    tally.observe(0.00003, 2);
    tally.count('udp', RCODE.NXDOMAIN);
    tally.observe(0.0007, 1);
    tally.count('tcp', RCODE.NOERROR);
    tally.observe(0.02, 1);
    const report = tally.drain()!;
    expect(report.counts).toEqual([
      ['udp', 'NOERROR', 2],
      ['udp', 'NXDOMAIN', 1],
      ['tcp', 'NOERROR', 1],
    ]);
    expect(tally.drain()).toBeNull();

    const metrics = newMetrics();
    const bins = answerTimeHistogram(metrics);
    expect(answerTimeHistogram(metrics)).toBe(bins);
    bins.add(report.times);
    bins.observe(0.00004);
    const text = await metrics.registry.metrics();
    expect(text).toContain('# TYPE dns_answer_duration_seconds histogram');
    const bucket = (le: string) =>
      Number(
        new RegExp(`dns_answer_duration_seconds_bucket\\{le="${le.replace('+', '\\+')}"\\} (\\S+)`).exec(text)?.[1],
      );
    expect([
      bucket('0.00005'),
      bucket('0.0001'),
      bucket('0.00025'),
      bucket('0.0005'),
      bucket('0.001'),
      bucket('0.01'),
      bucket('+Inf'),
    ]).toEqual([3, 3, 3, 3, 4, 4, 5]);
    expect(text).toMatch(/dns_answer_duration_seconds_count 5/);
    expect(Number(/dns_answer_duration_seconds_sum (\S+)/.exec(text)?.[1])).toBeCloseTo(0.0208, 6);
  });
});
