import { RRset } from './zone.events';

/** What the export writes besides the RRsets: the apex the service generates (contract §4, §18). */
export interface ZoneApex {
  zone: string;
  nameservers: string[];
  /** SOA serial to print; informational, the import regenerates the SOA. */
  serial: number;
}

/**
 * Types the export leaves out (contract §18): DNSSEC data is the signer's, not the
 * owner's, and the import refuses it, so an export always imports back unchanged.
 */
const NOT_EXPORTED = new Set(['DNSKEY', 'RRSIG', 'NSEC', 'NSEC3', 'NSEC3PARAM', 'CDS', 'CDNSKEY']);

const APEX_TTL = 3600;

/**
 * A zone as a BIND master file (RFC 1035 §5): `$ORIGIN`, the SOA and apex NS the service
 * serves, then every RRset with owner names relative to the origin and record data as
 * stored (canonical presentation format, names absolute), one record a line.
 * parseMasterFile reads it back to the same RRsets (it skips the SOA and apex NS).
 */
export function formatMasterFile(apex: ZoneApex, rrsets: readonly RRset[]): string {
  const origin = `${apex.zone}.`;
  const lines = [
    `; ${apex.zone} exported by Account DNS`,
    `$ORIGIN ${origin}`,
    `@ ${APEX_TTL} IN SOA ${absolute(apex.nameservers[0] ?? apex.zone)} hostmaster.${origin} ${apex.serial >>> 0} 3600 600 604800 60`,
    ...apex.nameservers.map((ns) => `@ ${APEX_TTL} IN NS ${absolute(ns)}`),
  ];
  const sorted = [...rrsets].sort((a, b) => a.subname.localeCompare(b.subname) || a.type.localeCompare(b.type));
  for (const rrset of sorted) {
    if (NOT_EXPORTED.has(rrset.type)) continue;
    const owner = rrset.subname === '' ? '@' : rrset.subname;
    for (const record of rrset.records) lines.push(`${owner} ${rrset.ttl} IN ${rrset.type} ${record}`);
  }
  return lines.join('\n') + '\n';
}

const absolute = (name: string) => (name.endsWith('.') ? name : `${name}.`);
