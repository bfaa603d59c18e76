/**
 * `audit:verify <file>`: checks an audit export (JSON Lines or CSV, contract §19) line by
 * line: each hash recomputes from its entry, each entry links to the line before, and each
 * entry is the event the store holds, with the hash the store's chain holds, all of one
 * account. A file cut at either end verifies as long as what remains links; a removed,
 * inserted, reordered or changed line fails naming that line.
 */
import { parse } from 'csv-parse';
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import {
  actorFromCsv,
  AUDIT_CSV_COLUMNS,
  AuditEntry,
  auditEntryOf,
  chainHash,
} from '../../libs/accounts/domain/audit-chain';
import type { StoredAuditEntry } from '../../libs/accounts/http/audit-admin.controller';

/** One line of the file as read: the entry as far as the line gives it (a CSV line has no stream or revision). */
interface ExportLine {
  line: number;
  entry: Omit<AuditEntry, 'stream' | 'revision'> & Partial<Pick<AuditEntry, 'stream' | 'revision'>>;
  prev_hash: string | null;
  hash: string;
}

export type StoreLookup = (ids: string[]) => Promise<StoredAuditEntry[]>;

export interface VerifyResult {
  ok: true;
  format: 'jsonl' | 'csv';
  entries: number;
  account_id: number | null;
  first_id: string | null;
  last_id: string | null;
  /** Where the file starts in the account's chain (null: at its first ever entry). */
  first_prev_hash: string | null;
}

/** Lines checked against the store per request (the admin endpoint takes at most 1,000). */
const BATCH = 500;

class BadLine extends Error {
  constructor(line: number, reason: string) {
    super(`line ${line}: ${reason}`);
  }
}

const JSONL_KEYS = [
  'id',
  'type',
  'occurred_at',
  'stream',
  'revision',
  'actor',
  'source_ip',
  'correlation_id',
  'data',
  'prev_hash',
  'hash',
];
const isHash = (v: unknown): v is string => typeof v === 'string' && /^[0-9a-f]{64}$/.test(v);
const nullableString = (v: unknown) => v === null || typeof v === 'string';

function jsonlLine(text: string, line: number): ExportLine {
  let v: Record<string, unknown>;
  try {
    v = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new BadLine(line, 'not JSON');
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new BadLine(line, 'not an entry');
  const keys = Object.keys(v).sort();
  if (keys.join() !== [...JSONL_KEYS].sort().join()) throw new BadLine(line, `fields must be ${JSONL_KEYS.join(', ')}`);
  const ok =
    typeof v.id === 'string' &&
    typeof v.type === 'string' &&
    typeof v.occurred_at === 'string' &&
    typeof v.stream === 'string' &&
    Number.isInteger(v.revision) &&
    nullableString(v.actor) &&
    nullableString(v.source_ip) &&
    nullableString(v.correlation_id) &&
    (v.prev_hash === null || isHash(v.prev_hash)) &&
    isHash(v.hash);
  if (!ok) throw new BadLine(line, 'a field has the wrong type');
  return {
    line,
    entry: auditEntryOf(v as unknown as AuditEntry),
    prev_hash: v.prev_hash as string | null,
    hash: v.hash as string,
  };
}

function csvLine(record: string[], line: number): ExportLine {
  if (record.length !== AUDIT_CSV_COLUMNS.length)
    throw new BadLine(line, `expected ${AUDIT_CSV_COLUMNS.length} columns, found ${record.length}`);
  const [id, occurred_at, type, actorType, actorId, sourceIp, correlationId, dataText, prevHash, hash] = record;
  let data: unknown;
  try {
    data = JSON.parse(dataText);
  } catch {
    throw new BadLine(line, 'data is not JSON');
  }
  if ((prevHash !== '' && !isHash(prevHash)) || !isHash(hash))
    throw new BadLine(line, 'prev_hash and hash must be hex SHA-256');
  return {
    line,
    entry: {
      id,
      type,
      occurred_at,
      actor: actorFromCsv(actorType, actorId),
      source_ip: sourceIp || null,
      correlation_id: correlationId || null,
      data,
    },
    prev_hash: prevHash || null,
    hash,
  };
}

/** The file's lines as entries, in order; the format told by its first line (the CSV header). */
async function* readExport(file: string): AsyncGenerator<ExportLine> {
  const handle = await open(file, 'r');
  const { buffer, bytesRead } = await handle.read(Buffer.alloc(16), 0, 16, 0);
  await handle.close();
  const header = AUDIT_CSV_COLUMNS.join(',');
  // A JSON Lines file starts with `{`; the CSV with its header, checked whole below.
  if (buffer.subarray(0, bytesRead).toString('utf8').startsWith('id,')) {
    const records = createReadStream(file).pipe(parse({ info: true, relax_column_count: true }));
    for await (const { record, info } of records as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      if (info.lines === 1) {
        if (record.join(',') !== header) throw new BadLine(1, `the header must be ${header}`);
        continue;
      }
      yield csvLine(record, info.lines);
    }
    return;
  }
  let line = 0;
  for await (const text of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    line++;
    if (text.trim() === '') continue;
    yield jsonlLine(text, line);
  }
}

export async function verifyAuditExport(file: string, lookup: StoreLookup): Promise<VerifyResult> {
  const result: VerifyResult = {
    ok: true,
    format: 'jsonl',
    entries: 0,
    account_id: null,
    first_id: null,
    last_id: null,
    first_prev_hash: null,
  };
  let previous: ExportLine | null = null;
  const check = async (batch: ExportLine[]) => {
    const stored = await lookup(batch.map((l) => l.entry.id));
    for (const [i, l] of batch.entries()) {
      const s = stored[i];
      if (!s || s.id !== l.entry.id || s.entry === null)
        throw new BadLine(l.line, `no audited event ${l.entry.id} in the store`);
      // A CSV line has no stream or revision: they are the store's.
      const entry: AuditEntry = auditEntryOf({
        stream: s.entry.stream,
        revision: s.entry.revision,
        ...l.entry,
      } as AuditEntry);
      if (chainHash(entry, l.prev_hash) !== l.hash)
        throw new BadLine(l.line, 'hash does not match the entry (changed)');
      if (previous !== null && l.prev_hash !== previous.hash)
        throw new BadLine(
          l.line,
          `prev_hash does not link to line ${previous.line} (an entry is missing, added or moved)`,
        );
      if (chainHash(entry, null) !== chainHash(s.entry, null))
        throw new BadLine(l.line, `differs from event ${l.entry.id} in the store`);
      if (result.account_id === null) result.account_id = s.account_id;
      else if (s.account_id !== result.account_id) throw new BadLine(l.line, 'belongs to another account');
      if (s.hash !== l.hash || s.prev_hash !== l.prev_hash)
        throw new BadLine(l.line, 'hash differs from the store’s chain (the chain was recomputed)');
      if (previous === null) {
        result.format = l.entry.stream === undefined ? 'csv' : 'jsonl';
        result.first_id = l.entry.id;
        result.first_prev_hash = l.prev_hash;
      }
      result.last_id = l.entry.id;
      result.entries++;
      previous = l;
    }
  };
  let batch: ExportLine[] = [];
  for await (const l of readExport(file)) {
    batch.push(l);
    if (batch.length >= BATCH) {
      await check(batch);
      batch = [];
    }
  }
  if (batch.length > 0) await check(batch);
  return result;
}
