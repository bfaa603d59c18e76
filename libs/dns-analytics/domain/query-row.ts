/**
 * One logged DNS query as analytics keeps it: what the DNS server reported, enriched with
 * the client's country and network, attributed to one account and one of its domains.
 */
export interface QueryRow {
  /** Epoch milliseconds at receipt. */
  ts: number;
  accountId: number;
  /** The zone name or dynamic-DNS host fqdn the query belongs to (longest match). */
  domain: string;
  qname: string;
  qtype: string;
  rcode: string;
  clientIp: string;
  /** ISO 3166 alpha-2, or `Unknown`. */
  country: string;
  /** `AS<number>`, or `Unknown`. */
  asn: string;
  asOrg: string;
  transport: 'udp' | 'tcp';
  dnssecOk: boolean;
  edns: boolean;
  responseMs: number;
}

export const UNKNOWN = 'Unknown';

/** What the IP data says of a client address. */
export interface IpInfo {
  country: string;
  asn: string;
  asOrg: string;
}

export const isIpv6 = (ip: string): boolean => ip.includes(':') && !ip.startsWith('::ffff:');

/** Response codes the summary always shows, in the seed's order. */
export const SUMMARY_RCODES = ['NOERROR', 'NXDOMAIN', 'SERVFAIL', 'REFUSED'] as const;
export const ERROR_RCODES = ['NXDOMAIN', 'SERVFAIL', 'REFUSED'];
