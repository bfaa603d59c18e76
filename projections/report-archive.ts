import type { ReportRetentionApplied } from '../libs/dmarc-reports/domain/report.events';
import type { DomainEvent } from '../libs/shared/decider';
import { defineProjection, defineReadModel, type ReadModel } from '../libs/projection-engine/read-model';

type ReceivedReport = DomainEvent<string, { report_key: string }>;

/** A report kept as received, under its report key. */
export type ArchivedReport<E extends ReceivedReport> = E['data'] & { _id: string; id: string };

/**
 * A read model of one kind of report kept whole as received (failure reports, TLS reports): one
 * document per report key (a report mailed twice is one document), listed newest first by zone
 * and by account, dropped by the retention job on the date field `dateField`.
 */
export function defineReportArchive<E extends ReceivedReport>(spec: {
  name: string;
  received: E['type'];
  dateField: keyof E['data'] & string;
}) {
  const readModel: ReadModel<ArchivedReport<E>> = defineReadModel<ArchivedReport<E>>(spec.name, spec.name, [
    { keys: { zone: 1, [spec.dateField]: -1 } },
    { keys: { account_id: 1, [spec.dateField]: -1 } },
  ]);
  const projection = defineProjection<E | ReportRetentionApplied>({
    name: spec.name,
    version: 1,
    readModels: [readModel],
    handles: [spec.received, 'DmarcReportRetentionApplied'] as (E | ReportRetentionApplied)['type'][],
    async apply(event, ctx) {
      const reports = ctx.collection(readModel);
      if (event.type === 'DmarcReportRetentionApplied') {
        const cutoff = (event as ReportRetentionApplied).data.cutoff;
        await reports.deleteMany({ [spec.dateField]: { $lt: cutoff } });
        return;
      }
      const d = event.data as E['data'];
      await reports.replaceOne({ _id: d.report_key }, { _id: d.report_key, id: d.report_key, ...d }, { upsert: true });
    },
  });
  return { readModel, projection };
}
