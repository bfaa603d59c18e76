import type { QueryRow } from '../../domain/query-row';

const BASE: QueryRow = {
  ts: 0,
  accountId: 1,
  domain: 'a.test',
  qname: 'www.a.test',
  qtype: 'A',
  rcode: 'NOERROR',
  clientIp: '192.0.2.1',
  country: 'Unknown',
  asn: 'Unknown',
  asOrg: 'Unknown',
  transport: 'udp',
  dnssecOk: false,
  edns: false,
  responseMs: 0.5,
};

/** Query-log rows for tests: a suite's defaults over a plain UDP A query, then each row's own fields. */
export const queryRows =
  (defaults: Partial<QueryRow> = {}) =>
  (over: Partial<QueryRow> = {}): QueryRow => ({ ...BASE, ...defaults, ...over });
