import { ObjectId } from 'mongodb';
import type { QueryRow } from '../../domain/query-row';
import type { LegacyRowDoc } from '../mongo-query-blocks';

/** A row as the former one-document-per-query MongoDB adapter wrote it (specs of the stores reading it beside blocks). */
export const legacyRowDoc = (r: QueryRow): LegacyRowDoc => ({
  _id: new ObjectId(),
  ts: r.ts,
  account_id: r.accountId,
  domain: r.domain,
  qname: r.qname,
  qtype: r.qtype,
  rcode: r.rcode,
  client_ip: r.clientIp,
  country: r.country,
  asn: r.asn,
  as_org: r.asOrg,
  transport: r.transport,
  dnssec_ok: r.dnssecOk,
  edns: r.edns,
  response_ms: r.responseMs,
});
