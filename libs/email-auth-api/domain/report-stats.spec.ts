import { AggregateRecord } from '../../dmarc-reports/domain/aggregate-report';
import { chunkStats, foldSources, foldStats, foldTls, passRate, windowDays } from './report-stats';

const record = (over: Partial<AggregateRecord>): AggregateRecord => ({
  source_ip: '192.0.2.1',
  count: 1,
  disposition: 'none',
  dkim: 'pass',
  spf: 'pass',
  header_from: 'example.com',
  dkim_results: [],
  spf_results: [],
  ...over,
});

describe('report stats', () => {
  it('folds a chunk into message, disposition, DKIM/SPF and per-source totals (DMARC passes on either aligned result)', () => {
    const stats = chunkStats([
      record({ count: 5 }),
      record({ count: 3, dkim: 'fail', spf: 'pass', envelope_from: 'bounce.example.net' }),
      record({
        count: 2,
        dkim: 'fail',
        spf: 'fail',
        disposition: 'reject',
        source_ip: '198.51.100.9',
        spf_results: [{ domain: 'spoof.example', result: 'fail' }],
      }),
      record({ count: 1, disposition: '' }),
    ]);
    expect(stats).toEqual({
      messages: 11,
      passing: 9,
      disposition: { none: 9, reject: 2 },
      dkim: { pass: 6, fail: 5 },
      spf: { pass: 9, fail: 2 },
      sources: [
        { ip: '192.0.2.1', sending_domain: 'example.com', messages: 6, passing: 6 },
        { ip: '192.0.2.1', sending_domain: 'bounce.example.net', messages: 3, passing: 3 },
        { ip: '198.51.100.9', sending_domain: 'spoof.example', messages: 2, passing: 0 },
      ],
    });
  });

  it('sums chunks over a window into totals and a daily series with empty days', () => {
    const a = { ...chunkStats([record({ count: 4 })]), day: '2026-05-31' };
    const b = { ...chunkStats([record({ count: 6, dkim: 'fail', spf: 'fail' })]), day: '2026-05-31' };
    const folded = foldStats([a, b], ['2026-05-30', '2026-05-31']);
    expect(folded).toMatchObject({ messages: 10, passing: 4, pass_rate: 0.4, dkim: { pass: 4, fail: 6 } });
    expect(folded.daily).toEqual([
      { date: '2026-05-30', messages: 0, passing: 0, pass_rate: null },
      { date: '2026-05-31', messages: 10, passing: 4, pass_rate: 0.4 },
    ]);
  });

  it('merges sources across chunks, largest first', () => {
    const one = chunkStats([
      record({ source_ip: '192.0.2.1', count: 2 }),
      record({ source_ip: '192.0.2.2', count: 1 }),
    ]);
    const two = chunkStats([record({ source_ip: '192.0.2.2', count: 5, dkim: 'fail', spf: 'fail' })]);
    const merged = foldSources([one, two]);
    expect(merged.map((s) => [s.ip, s.messages, s.passing])).toEqual([
      ['192.0.2.2', 6, 1],
      ['192.0.2.1', 2, 2],
    ]);
  });

  it('gives the UTC days of a window, oldest first, and pass rates to four places', () => {
    expect(windowDays(new Date('2026-06-01T23:59:00Z'), 3)).toEqual(['2026-05-30', '2026-05-31', '2026-06-01']);
    expect([passRate(2, 3), passRate(0, 0)]).toEqual([0.6667, null]);
  });

  it('totals TLS reports: sessions, failure types, failing senders, policy types, per day', () => {
    const summary = foldTls(
      [
        {
          begin: '2026-05-31T00:00:00.000Z',
          successful_sessions: 90,
          failed_sessions: 10,
          policies: [
            {
              policy_type: 'sts',
              policy_domain: 'example.com',
              policy_string: [],
              mx_host: [],
              successful_sessions: 90,
              failed_sessions: 10,
              failure_details: [
                {
                  result_type: 'certificate-expired',
                  sending_mta_ip: '192.0.2.7',
                  receiving_mx_hostname: null,
                  receiving_ip: null,
                  failed_session_count: 7,
                  failure_reason_code: null,
                },
                {
                  result_type: 'starttls-not-supported',
                  sending_mta_ip: '192.0.2.7',
                  receiving_mx_hostname: null,
                  receiving_ip: null,
                  failed_session_count: 3,
                  failure_reason_code: null,
                },
              ],
            },
          ],
        },
      ],
      ['2026-05-31'],
    );
    expect(summary).toEqual({
      reports: 1,
      successful_sessions: 90,
      failed_sessions: 10,
      success_rate: 0.9,
      failure_types: [
        { result_type: 'certificate-expired', failed_sessions: 7 },
        { result_type: 'starttls-not-supported', failed_sessions: 3 },
      ],
      failing_senders: [
        {
          sending_mta_ip: '192.0.2.7',
          failed_sessions: 10,
          result_types: ['certificate-expired', 'starttls-not-supported'],
        },
      ],
      policy_types: [{ policy_type: 'sts', sessions: 100 }],
      daily: [{ date: '2026-05-31', successful_sessions: 90, failed_sessions: 10 }],
    });
  });
});
