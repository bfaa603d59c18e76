import { ReportEvent, ReportRetentionApplied } from '../libs/dmarc-reports/domain/report.events';
import { project } from '../libs/projection-engine/projection-harness';
import { DMARC_REPORT_ROWS, DMARC_REPORTS, dmarcReportsProjection } from './dmarc-reports.projection';
import { aggregateRecord, aggregateReportReceived, readFromVersion1, retentionApplied } from './report-events.fixture';

const passing = aggregateRecord('192.0.2.1', 10, 'pass', 'fail');
const failing = aggregateRecord('198.51.100.2', 3, 'fail', 'fail', 'bounce.example.net');

describe('dmarc_reports projection', () => {
  it('given two aggregate reports and a retention run between them: the newer report with its totals and one row per record; replaying changes nothing', async () => {
    const h = await project<ReportEvent | ReportRetentionApplied>(dmarcReportsProjection, [
      ...aggregateReportReceived('old', '2026-01-10T00:00:00.000Z', [failing]),
      ...aggregateReportReceived('new', '2026-03-01T00:00:00.000Z', [passing, failing]),
      retentionApplied('2026-02-01T00:00:00.000Z'),
    ]);
    const reports = [
      {
        _id: 'new',
        id: 'new',
        zone: 'example.com',
        account_id: 7,
        org_name: 'Google.com',
        email: 'noreply@google.com',
        report_id: 'id-new',
        begin: '2026-03-01T00:00:00.000Z',
        end: '2026-03-01T23:59:59.000Z',
        generator: null,
        policy: { domain: 'example.com', p: 'quarantine', pct: 50 },
        record_count: 2,
        message_count: 13,
        passing_count: 10,
        received_at: '2026-03-05T08:00:00.000Z',
        source: 'smtp',
      },
    ];
    const row = { report_key: 'new', zone: 'example.com', begin: '2026-03-01T00:00:00.000Z' };
    const rows = [
      { _id: 'new:0', ...row, index: 0, ...passing },
      { _id: 'new:1', ...row, index: 1, ...failing },
    ];
    expect(await h.documents(DMARC_REPORTS)).toEqual(reports);
    expect(await h.documents(DMARC_REPORT_ROWS)).toEqual(rows);
    await h.replayed();
    expect(await h.documents(DMARC_REPORTS)).toEqual(reports);
    expect(await h.documents(DMARC_REPORT_ROWS)).toEqual(rows);
    await h.close();
  });
});

describe('dmarc_reports projection over events stored before version 2', () => {
  it('a report whose chunks hold records as objects (version 1) gives the same rows as one stored packed', async () => {
    const events = aggregateReportReceived('r', '2026-03-01T00:00:00.000Z', [passing, failing, { ...passing, reasons: [{ type: 'forwarded' }], envelope_to: 'example.org' }]);
    const packed = await project<ReportEvent>(dmarcReportsProjection, events);
    const old = await project<ReportEvent>(dmarcReportsProjection, readFromVersion1(events));
    const rows = await packed.documents(DMARC_REPORT_ROWS);
    expect(rows).toHaveLength(3);
    expect(rows[2]).toEqual({
      _id: 'r:2',
      report_key: 'r',
      zone: 'example.com',
      begin: '2026-03-01T00:00:00.000Z',
      index: 2,
      ...passing,
      reasons: [{ type: 'forwarded' }],
      envelope_to: 'example.org',
    });
    expect(await old.documents(DMARC_REPORT_ROWS)).toEqual(rows);
    expect(await old.documents(DMARC_REPORTS)).toEqual(await packed.documents(DMARC_REPORTS));
    await packed.close();
    await old.close();
  });
});
