import { ReportEvent, ReportRetentionApplied } from '../libs/dmarc-reports/domain/report.events';
import { project } from '../libs/projection-engine/projection-harness';
import {
  DMARC_REPORT_STATS,
  DMARC_REPORT_STATS_OWNERS,
  dmarcReportStatsProjection,
} from './dmarc-report-stats.projection';
import { aggregateRecord, aggregateReportReceived, readFromVersion1, retentionApplied } from './report-events.fixture';

describe('dmarc_report_stats projection', () => {
  it('given two aggregate reports and a retention run between them: the newer report’s chunk totals with its owner and day; replaying adds nothing twice', async () => {
    const h = await project<ReportEvent | ReportRetentionApplied>(dmarcReportStatsProjection, [
      ...aggregateReportReceived('old', '2026-01-10T00:00:00.000Z', [aggregateRecord('192.0.2.9', 4, 'pass', 'pass')]),
      ...aggregateReportReceived('new', '2026-03-01T00:00:00.000Z', [
        aggregateRecord('192.0.2.1', 10, 'pass', 'fail'),
        aggregateRecord('192.0.2.1', 5, 'fail', 'pass'),
        aggregateRecord('198.51.100.2', 3, 'fail', 'fail', 'bounce.example.net'),
      ]),
      retentionApplied('2026-02-01T00:00:00.000Z'),
    ]);
    const stats = [
      {
        _id: 'new:0',
        report_key: 'new',
        zone: 'example.com',
        account_id: 7,
        begin: '2026-03-01T00:00:00.000Z',
        day: '2026-03-01',
        messages: 18,
        passing: 15,
        disposition: { none: 15, quarantine: 3 },
        dkim: { pass: 10, fail: 8 },
        spf: { fail: 13, pass: 5 },
        sources: [
          { ip: '192.0.2.1', sending_domain: 'example.com', messages: 15, passing: 15 },
          { ip: '198.51.100.2', sending_domain: 'bounce.example.net', messages: 3, passing: 0 },
        ],
      },
    ];
    const owners = [{ _id: 'new', account_id: 7, begin: '2026-03-01T00:00:00.000Z' }];
    expect(await h.documents(DMARC_REPORT_STATS)).toEqual(stats);
    expect(await h.documents(DMARC_REPORT_STATS_OWNERS)).toEqual(owners);
    await h.replayed();
    expect(await h.documents(DMARC_REPORT_STATS)).toEqual(stats);
    expect(await h.documents(DMARC_REPORT_STATS_OWNERS)).toEqual(owners);
    await h.close();
  });
});

describe('dmarc_report_stats projection over events stored before version 2', () => {
  it('chunks holding records as objects (version 1) give the same totals as packed ones', async () => {
    const events = aggregateReportReceived('r', '2026-03-01T00:00:00.000Z', [
      aggregateRecord('192.0.2.1', 10, 'pass', 'fail'),
      aggregateRecord('198.51.100.2', 3, 'fail', 'fail', 'bounce.example.net'),
    ]);
    const packed = await project<ReportEvent>(dmarcReportStatsProjection, events);
    const old = await project<ReportEvent>(dmarcReportStatsProjection, readFromVersion1(events));
    const stats = await packed.documents(DMARC_REPORT_STATS);
    expect(stats).toEqual([expect.objectContaining({ _id: 'r:0', messages: 13, passing: 10 })]);
    expect(await old.documents(DMARC_REPORT_STATS)).toEqual(stats);
    await packed.close();
    await old.close();
  });
});
