import { Injectable } from '@nestjs/common';
import { ProjectionEngine } from '../../projection-engine/projection-engine';
import { AUDIT_CHAIN_HEADS, AUDIT_EVENTS, AuditEventDoc } from '../../../projections/audit.projection';
import { csvRecord } from '../../shared/csv';
import { actorToCsv, AUDIT_CSV_COLUMNS, auditEntryOf, ChainedAuditEntry } from '../domain/audit-chain';

export type AuditExportFormat = 'jsonl' | 'csv';
export const AUDIT_EXPORT_FORMATS: readonly AuditExportFormat[] = ['jsonl', 'csv'];

/** `from` inclusive, `to` exclusive, as ISO strings in the stored form (`toISOString`); either may be absent. */
export interface AuditWindow {
  from?: string;
  to?: string;
}

/** Entries read per query: one page in memory at a time, whatever the account's history. */
const PAGE = 500;

export const exportedEntry = (d: AuditEventDoc): ChainedAuditEntry => ({
  ...auditEntryOf({ ...d, id: d._id }),
  prev_hash: d.prev_hash,
  hash: d.hash,
});

/** The export's body in chunks of one page, pulled by the socket (Readable.from), so memory stays flat. */
export async function* auditExportChunks(
  pages: AsyncIterable<AuditEventDoc[]>,
  format: AuditExportFormat,
): AsyncGenerator<string> {
  if (format === 'csv') yield AUDIT_CSV_COLUMNS.join(',') + '\r\n';
  for await (const page of pages) {
    let chunk = '';
    for (const d of page) {
      const e = exportedEntry(d);
      if (format === 'jsonl') chunk += JSON.stringify(e) + '\n';
      else {
        const { actor_type, actor_id } = actorToCsv(e.actor);
        chunk += csvRecord([
          e.id,
          e.occurred_at,
          e.type,
          actor_type,
          actor_id,
          e.source_ip ?? '',
          e.correlation_id ?? '',
          JSON.stringify(e.data),
          e.prev_hash ?? '',
          e.hash,
        ]);
      }
    }
    yield chunk;
  }
}

/** Reads an account's chained audit entries, oldest first, in pages by position. */
@Injectable()
export class AuditExportQueries {
  constructor(private readonly projections: ProjectionEngine) {}

  /**
   * The entries up to the chain head as the export starts (so an export ends at a definite
   * entry while writes go on), keyset-paged by position: each page is one indexed query
   * (ORDER BY … LIMIT in SQL on the embedded store). A window is first turned into positions
   * through the `occurred_at` index (the first entry at or after `from`, the first at or after
   * `to`), so it costs its own size, not the history before or after it; the time filter
   * stays on every page. Entry times follow positions (the store stamps them at commit).
   */
  async *pages(accountId: number, window: AuditWindow): AsyncGenerator<AuditEventDoc[]> {
    const head = await this.projections.readModel(AUDIT_CHAIN_HEADS).findOne({ _id: accountId });
    if (!head) return;
    const events = this.projections.readModel(AUDIT_EVENTS);
    const firstAtOrAfter = async (instant: string | undefined): Promise<number | null> => {
      if (instant === undefined) return null;
      const doc = await events.findOne(
        { account_id: accountId, occurred_at: { $gte: instant } },
        { sort: { occurred_at: 1 }, projection: { position: 1 } },
      );
      return doc ? doc.position : Infinity;
    };
    const start = await firstAtOrAfter(window.from);
    const end = await firstAtOrAfter(window.to);
    const last = Math.min(head.position, end === null ? Infinity : end - 1);
    const occurred: Record<string, string> = {};
    if (window.from !== undefined) occurred.$gte = window.from;
    if (window.to !== undefined) occurred.$lt = window.to;
    let after = start === null ? -1 : start - 1;
    while (after < last) {
      const filter: Record<string, unknown> = { account_id: accountId, position: { $gt: after, $lte: last } };
      if (window.from !== undefined || window.to !== undefined) filter.occurred_at = occurred;
      const page = await events.find(filter, { sort: { position: 1 }, limit: PAGE });
      if (page.length > 0) yield page;
      if (page.length < PAGE) return;
      after = page[page.length - 1].position;
    }
  }
}
