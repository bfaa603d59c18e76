import { isIPv4, isIPv6 } from 'node:net';

/** The two address families a dynamic-DNS host can hold (one address each). */
export type Family = 'ipv4' | 'ipv6';
export type RecordType = 'A' | 'AAAA';

export const familyOfType = (type: RecordType): Family => (type === 'A' ? 'ipv4' : 'ipv6');
export const typeOfFamily = (family: Family): RecordType => (family === 'ipv4' ? 'A' : 'AAAA');

/**
 * The family of a textual address, or null when it is not one. IPv4-mapped IPv6
 * (`::ffff:1.2.3.4`, what a dual-stack socket reports for an IPv4 client) counts as IPv4.
 * Zone ids (`fe80::1%eth0`) are not addresses a DNS record can hold.
 */
export function familyOf(ip: string): Family | null {
  if (isIPv4(ip)) return 'ipv4';
  if (isIPv6(ip) && !ip.includes('%')) return mappedIpv4(ip) ? 'ipv4' : 'ipv6';
  return null;
}

const mappedIpv4 = (ip: string): string | null => /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)?.[1] ?? null;

/**
 * Canonical text of an address, so that "2001:DB8::0:1" and "2001:db8::1" compare equal
 * and `nochg` is exact. Null when it is not an address.
 */
export function canonicalIp(ip: string): string | null {
  const family = familyOf(ip);
  if (family === null) return null;
  if (family === 'ipv4') return mappedIpv4(ip) ?? ip;
  // The URL parser normalises IPv6 per RFC 5952 (lowercase, longest zero run compressed).
  return new URL(`http://[${ip}]/`).hostname.slice(1, -1);
}
