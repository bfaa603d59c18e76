/**
 * The row layout of the dmarc_reports projection: an aggregate report's rows stored in
 * blocks of ROW_BLOCK_SIZE consecutive rows, each row already serialised as the
 * email-auth API sends it (its TAIL, see libs/email-auth-api/domain/report-row-json.ts).
 *
 * Why blocks: rows never change once ingested and are only ever read as pages of
 * consecutive rows (limit <= 100), so a page reads one or two documents and builds its
 * body by concatenating strings, where one document per row meant 101 documents read,
 * parsed and stringified again per page. Retention deletes whole blocks (they carry the
 * report's period start), and the whole layout is a pure function of the events.
 *
 * A block's rows are lines of two strings rather than arrays of 100 strings each: JSON
 * text never holds a raw line feed, and two long strings cost far less to parse, cache
 * and collect than two hundred short ones (a block is read whole for every page).
 */
const LINE = '\n';
import { AggregateRecord } from '../libs/dmarc-reports/domain/aggregate-report';
import { rowTailJson } from '../libs/email-auth-api/domain/report-row-json';
import { defineReadModel } from '../libs/projection-engine/read-model';

/** Rows per block: one block answers an aligned page of the API's largest limit (100). */
export const ROW_BLOCK_SIZE = 100;

export interface DmarcReportRowBlockDoc {
  /** rowBlockId(report_key, block) */
  _id: string;
  report_key: string;
  zone: string;
  /** The report's period start (retention deletes by it). */
  begin: string;
  /** Block number: holds rows block * ROW_BLOCK_SIZE … block * ROW_BLOCK_SIZE + ROW_BLOCK_SIZE - 1. */
  block: number;
  /**
   * Each row's source IP as a JSON string, one line per position in the block ('' where a
   * row has not arrived yet). Country and network are looked up when read.
   */
  source_ips: string;
  /** Each row's TAIL JSON (`,"count":…}`), one line per position ('' where a row has not arrived yet). */
  tails: string;
}

export const DMARC_REPORT_ROW_BLOCKS = defineReadModel<DmarcReportRowBlockDoc>(
  'dmarc_reports',
  'dmarc_report_row_blocks',
  [{ keys: { report_key: 1, block: 1 } }, { keys: { begin: 1 } }],
);

export const rowBlockOf = (index: number): number => Math.floor(index / ROW_BLOCK_SIZE);
export const rowBlockId = (reportKey: string, block: number): string => `${reportKey}:b${block}`;

/** The numbers of the blocks holding rows `offset` … `offset + count - 1`. */
export function rowBlocksSpanned(offset: number, count: number): number[] {
  if (count <= 0) return [];
  const blocks: number[] = [];
  for (let b = rowBlockOf(offset); b <= rowBlockOf(offset + count - 1); b++) blocks.push(b);
  return blocks;
}

export interface RowSlice {
  report_key: string;
  zone: string;
  begin: string;
  /** Index of the first record in the report. */
  offset: number;
  records: AggregateRecord[];
}

/** A block's lines: ROW_BLOCK_SIZE at most, '' where a row is missing. */
export const blockLines = (field: string): string[] => (field === '' ? [] : field.split(LINE));

/**
 * The blocks after placing `slice`'s rows into them: `existing` (blocks already stored,
 * by number) keep their other rows; a redelivered slice rewrites the same positions with
 * the same values, so applying it twice changes nothing.
 */
export function placeRows(
  slice: RowSlice,
  existing: ReadonlyMap<number, DmarcReportRowBlockDoc>,
): DmarcReportRowBlockDoc[] {
  const out = new Map<number, { ips: string[]; tails: string[] }>();
  slice.records.forEach((record, i) => {
    const index = slice.offset + i;
    const block = rowBlockOf(index);
    let lines = out.get(block);
    if (!lines) {
      const before = existing.get(block);
      out.set(
        block,
        (lines = { ips: before ? blockLines(before.source_ips) : [], tails: before ? blockLines(before.tails) : [] }),
      );
    }
    const at = index - block * ROW_BLOCK_SIZE;
    // A position beyond the end (a slice that does not follow on) leaves empty lines between.
    while (lines.tails.length < at) {
      lines.tails.push('');
      lines.ips.push('');
    }
    lines.tails[at] = rowTailJson(record);
    lines.ips[at] = JSON.stringify(record.source_ip);
  });
  return [...out].map(([block, lines]) => ({
    _id: rowBlockId(slice.report_key, block),
    report_key: slice.report_key,
    zone: slice.zone,
    begin: slice.begin,
    block,
    source_ips: lines.ips.join(LINE),
    tails: lines.tails.join(LINE),
  }));
}

/** How many rows the blocks hold (tests and tools: the count of rows stored for a report). */
export const rowsHeld = (blocks: readonly DmarcReportRowBlockDoc[]): number =>
  blocks.reduce((n, b) => n + blockLines(b.tails).filter((t) => t !== '').length, 0);
