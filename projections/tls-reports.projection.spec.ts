import { ReportEvent, ReportRetentionApplied } from '../libs/dmarc-reports/domain/report.events';
import { project } from '../libs/projection-engine/projection-harness';
import { TLS_REPORTS, tlsReportsProjection } from './tls-reports.projection';
import { failureReportReceived, retentionApplied, tlsReportReceived } from './report-events.fixture';

describe('tls_reports projection', () => {
  it('given TLS reports either side of a retention run (and a failure report): the newer one with its totals and policies; replaying changes nothing', async () => {
    const kept = tlsReportReceived('t-new', '2026-03-01T00:00:00.000Z');
    const h = await project<ReportEvent | ReportRetentionApplied>(tlsReportsProjection, [
      tlsReportReceived('t-old', '2026-01-01T00:00:00.000Z'),
      kept,
      failureReportReceived('f', '2026-03-02T00:00:00.000Z'),
      retentionApplied('2026-02-01T00:00:00.000Z'),
    ]);
    const expected = [{ _id: 't-new', id: 't-new', ...kept.data }];
    expect(await h.documents(TLS_REPORTS)).toEqual(expected);
    await h.replayed();
    expect(await h.documents(TLS_REPORTS)).toEqual(expected);
    await h.close();
  });
});
