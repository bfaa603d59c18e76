import { Injectable } from '@nestjs/common';
import { DMARC_REPORTS } from '../../../projections/dmarc-reports.projection';
import { ProjectionEngine } from '../../projection-engine/projection-engine';
import { DmarcAggregateStats, DmarcAggregateTotals } from '../../email-auth/application/aggregate-stats.port';

/**
 * The wizard's view of ingested aggregate data, from the dmarc_reports read model: each
 * report document already carries its message and DMARC-passing totals (summed from the
 * records at ingestion), so a window's totals read reports, never rows.
 */
@Injectable()
export class ReadModelAggregateStats implements DmarcAggregateStats {
  constructor(private readonly projections: ProjectionEngine) {}

  async totals(zone: string, from: Date, to: Date): Promise<DmarcAggregateTotals> {
    const reports = await this.projections
      .readModel(DMARC_REPORTS)
      .find(
        { zone: zone.toLowerCase().replace(/\.$/, ''), begin: { $gte: from.toISOString(), $lt: to.toISOString() } },
        { projection: { message_count: 1, passing_count: 1 } },
      );
    let messages = 0;
    let passing = 0;
    for (const r of reports) {
      messages += r.message_count;
      passing += r.passing_count;
    }
    return { messages, passing };
  }
}
