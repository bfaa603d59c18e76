import { csvField } from '../../shared/csv';
import type { StoredRow } from './query-log.store';

export type ExportFormat = 'csv' | 'json';

/** Export columns, in order; JSON objects carry the same keys. */
export const EXPORT_COLUMNS = [
  'timestamp',
  'domain',
  'qname',
  'qtype',
  'rcode',
  'client_ip',
  'country_code',
  'asn',
  'as_organization',
  'transport',
  'dnssec_ok',
  'edns',
  'response_ms',
] as const;

export const exportRecord = (r: StoredRow) => ({
  timestamp: new Date(r.ts).toISOString(),
  domain: r.domain,
  qname: r.qname,
  qtype: r.qtype,
  rcode: r.rcode,
  client_ip: r.clientIp,
  country_code: r.country,
  asn: r.asn,
  as_organization: r.asOrg,
  transport: r.transport,
  dnssec_ok: r.dnssecOk,
  edns: r.edns,
  response_ms: r.responseMs,
});

/** Rows per chunk handed to the socket: few enough writes, small enough memory. */
const CHUNK_ROWS = 200;

/** The export body in chunks, pulled one at a time so the whole export never sits in memory. */
export async function* exportChunks(rows: AsyncIterable<StoredRow>, format: ExportFormat): AsyncGenerator<string> {
  let chunk: string[] = [format === 'csv' ? EXPORT_COLUMNS.join(',') + '\r\n' : '['];
  let first = true;
  for await (const r of rows) {
    const rec = exportRecord(r);
    if (format === 'csv') chunk.push(EXPORT_COLUMNS.map((c) => csvField(rec[c])).join(',') + '\r\n');
    else {
      chunk.push((first ? '' : ',') + JSON.stringify(rec));
      first = false;
    }
    if (chunk.length >= CHUNK_ROWS) {
      yield chunk.join('');
      chunk = [];
    }
  }
  if (format === 'json') chunk.push(']');
  yield chunk.join('');
}
