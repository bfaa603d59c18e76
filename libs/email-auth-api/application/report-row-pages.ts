import { Injectable } from '@nestjs/common';
import {
  blockLines,
  DMARC_REPORT_ROW_BLOCKS,
  ROW_BLOCK_SIZE,
  rowBlockId,
  rowBlockOf,
} from '../../../projections/dmarc-report-row-blocks';
import { reportRowId } from '../../../projections/dmarc-reports.projection';
import { ProjectionEngine } from '../../projection-engine/projection-engine';
import { encodeCursor } from '../domain/cursor';
import { rowJson } from '../domain/report-row-json';
import { SenderIdentity } from './sender-identity';

/** A page of a report's rows: the JSON of its `data` array and the cursor of the next page. */
export interface RowPage {
  dataJson: string;
  /** How many rows `dataJson` holds. */
  rows: number;
  nextCursor: string | null;
}

/**
 * Whether a page read now is the page for good: every row it should hold (up to the
 * report's record count) is stored, and so is the row deciding its next cursor. A page
 * read while the report's rows are still being ingested is neither cached nor final.
 */
export function pageIsFinal(
  recordCount: number,
  after: number,
  limit: number,
  page: Pick<RowPage, 'rows' | 'nextCursor'>,
): boolean {
  const start = after + 1;
  if (start >= recordCount) return false;
  const expected = Math.min(limit, recordCount - start);
  return page.rows === expected && (page.nextCursor !== null || start + limit >= recordCount);
}

/** A stored block's rows by position ('' where one is missing), or none when the block is not stored. */
interface HeldBlock {
  ips: string[];
  tails: string[];
}

/**
 * Pages of an aggregate report's rows, read from the row blocks: rows `after + 1` …
 * `after + limit` lie in at most two blocks (limit <= block size), and whether a row
 * follows is the block already read or, when the page ends on a block's end, whether the
 * next block exists (a count by id, nothing parsed). Rows are ingested in order and never
 * change, so a page is stable while the report's later rows are still arriving.
 */
@Injectable()
export class ReportRowPages {
  constructor(
    private readonly projections: ProjectionEngine,
    private readonly senders: SenderIdentity,
  ) {}

  private blocks() {
    return this.projections.readModel(DMARC_REPORT_ROW_BLOCKS);
  }

  async page(reportKey: string, after: number, limit: number): Promise<RowPage> {
    const start = after + 1;
    const end = start + limit;
    const first = rowBlockOf(start);
    const wanted: string[] = [];
    for (let b = first; b <= rowBlockOf(end - 1); b++) wanted.push(rowBlockId(reportKey, b));
    // One query for both blocks, and by `$in` rather than by `_id`: the embedded store then
    // reads them straight from disk instead of through its document cache, where blocks
    // read once per page would only push out the small documents every request needs.
    const found = new Map((await this.blocks().find({ _id: { $in: wanted } })).map((doc) => [doc._id, doc]));
    const held: Array<HeldBlock | null> = wanted.map((id) => {
      const doc = found.get(id);
      return doc ? { ips: blockLines(doc.source_ips), tails: blockLines(doc.tails) } : null;
    });
    await this.senders.ready();
    let dataJson = '';
    let index = start;
    for (; index < end; index++) {
      const block = held[rowBlockOf(index) - first];
      const at = index % ROW_BLOCK_SIZE;
      const tail = block?.tails[at];
      // Rows arrive in order: the first one missing ends the report as stored so far.
      if (!tail) break;
      const ip = block.ips[at];
      dataJson += (index === start ? '' : ',') + rowJson(index, ip, this.senders.networkJson(ip), tail);
    }
    const lastIndex = index - 1;
    const full = index === end && lastIndex >= start;
    return {
      dataJson,
      rows: index - start,
      nextCursor:
        full && (await this.rowExists(reportKey, end, held, first))
          ? encodeCursor({ at: String(lastIndex), id: reportRowId(reportKey, lastIndex) })
          : null,
    };
  }

  /** Whether row `index` is stored: in a block already read, or (first row of the next block) by that block's presence. */
  private async rowExists(
    reportKey: string,
    index: number,
    held: Array<HeldBlock | null>,
    first: number,
  ): Promise<boolean> {
    const block = rowBlockOf(index);
    const read = held[block - first];
    if (read !== undefined) return !!read?.tails[index % ROW_BLOCK_SIZE];
    return (await this.blocks().countDocuments({ _id: rowBlockId(reportKey, block) })) > 0;
  }
}
