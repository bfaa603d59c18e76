import { ReportEvent, ReportRetentionApplied } from '../libs/dmarc-reports/domain/report.events';
import { project } from '../libs/projection-engine/projection-harness';
import { DMARC_FAILURE_REPORTS, dmarcFailureReportsProjection } from './dmarc-failure-reports.projection';
import {
  aggregateRecord,
  aggregateReportReceived,
  failureReportReceived,
  retentionApplied,
} from './report-events.fixture';

describe('dmarc_failure_reports projection', () => {
  it('given failure reports either side of a retention run (and an aggregate report): the newer one, still sealed; replaying changes nothing', async () => {
    const kept = failureReportReceived('f-new', '2026-03-02T00:00:00.000Z');
    const h = await project<ReportEvent | ReportRetentionApplied>(dmarcFailureReportsProjection, [
      failureReportReceived('f-old', '2026-01-02T00:00:00.000Z'),
      kept,
      ...aggregateReportReceived('agg', '2026-03-01T00:00:00.000Z', [aggregateRecord('192.0.2.1', 1, 'pass', 'pass')]),
      retentionApplied('2026-02-01T00:00:00.000Z'),
    ]);
    // Exactly the event's fields under the report key: the subject stays sealed, no plain subject or message id.
    const expected = [{ _id: 'f-new', id: 'f-new', ...kept.data }];
    expect(await h.documents(DMARC_FAILURE_REPORTS)).toEqual(expected);
    await h.replayed();
    expect(await h.documents(DMARC_FAILURE_REPORTS)).toEqual(expected);
    await h.close();
  });
});
