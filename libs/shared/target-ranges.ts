import { isIPv4 } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Which addresses may be an uptime target or a dynamic-DNS address (contract §16). The
 * service connects to uptime targets from inside its own network, so an address that
 * leads back into that network (the cloud metadata service at 169.254.169.254, a
 * database on 10.0.0.1, the service itself on 127.0.0.1) must never be one, whatever
 * form it is written in. Range membership comes from ipaddr.js (its RFC tables), not
 * from hand-written masks.
 */

/** ipaddr.js range names that are refused, with the words a message uses for them. */
const REFUSED: Record<string, string> = {
  unspecified: 'an unspecified address',
  broadcast: 'the broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address',
  loopback: 'a loopback address',
  carrierGradeNat: 'a carrier-grade NAT (100.64.0.0/10) address',
  private: 'a private (RFC 1918) address',
  uniqueLocal: 'a unique local (fc00::/7) address',
  deprecatedSiteLocal: 'a site-local address',
  // IPv4 192.0.0.0/24, 192.88.99.0/24, 198.18.0.0/15 and 240.0.0.0/4; IPv6 2001::/23:
  // not routed on the Internet, so only a private network could answer. The
  // documentation ranges inside these tables are let through below.
  reserved: 'a reserved address',
  benchmarking: 'a benchmarking address',
  discard: 'a discard-only address',
};

/**
 * Documentation ranges (RFC 5737, RFC 3849, RFC 9637) are allowed: they reach nothing
 * anywhere, so they cannot reach the service's network either, and examples, tests and
 * placeholder records use them.
 */
const DOCUMENTATION = ['192.0.2.0/24', '198.51.100.0/24', '203.0.113.0/24', '2001:db8::/32', '3fff::/20'].map((c) =>
  ipaddr.parseCIDR(c),
);

/** NAT64 prefix for local use (RFC 8215): translates to whatever the local network chooses. */
const LOCAL_NAT64 = ipaddr.parseCIDR('64:ff9b:1::/48');

/** How an IPv6 address carrying an IPv4 one is named in messages. */
const CARRIERS: Record<string, string> = {
  ipv4Mapped: 'IPv4-mapped IPv6',
  rfc6145: 'IPv4-translated IPv6',
  rfc6052: 'NAT64',
  '6to4': '6to4',
  teredo: 'Teredo',
};

const inDocumentation = (ip: ipaddr.IPv4 | ipaddr.IPv6) =>
  DOCUMENTATION.some(([net, bits]) => net.kind() === ip.kind() && ip.match(net, bits));

/** The IPv4 address an IPv6 form carries (mapped, translated, NAT64, 6to4, Teredo client), if any. */
function embeddedIpv4(ip: ipaddr.IPv6, range: string): ipaddr.IPv4 | null {
  const b = ip.toByteArray();
  const v4 = (at: number, invert = false) => new ipaddr.IPv4(b.slice(at, at + 4).map((x) => (invert ? ~x & 0xff : x)));
  switch (range) {
    case 'ipv4Mapped': // ::ffff:a.b.c.d
    case 'rfc6145': // ::ffff:0:a.b.c.d
    case 'rfc6052': // 64:ff9b::a.b.c.d
      return v4(12);
    case '6to4': // 2002:aabb:ccdd::/48
      return v4(2);
    case 'teredo': // the client's address, bits inverted, in the last 32 bits
      return v4(12, true);
    default:
      // IPv4-compatible (::a.b.c.d, deprecated by RFC 4291): still a v4 address in disguise.
      return b.slice(0, 12).every((x) => x === 0) ? v4(12) : null;
  }
}

/** An IPv4 subnet as 32-bit numbers: an address is in it when `(address & mask) === net`. */
interface Ipv4Subnet {
  net: number;
  mask: number;
}

const ipv4Number = (octets: readonly number[]): number =>
  ((octets[0] << 24) | (octets[1] << 16) | (octets[2] << 8) | octets[3]) >>> 0;

const ipv4Subnet = ([net, bits]: [ipaddr.IPv4, number]): Ipv4Subnet => {
  const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
  return { net: (ipv4Number(net.octets) & mask) >>> 0, mask };
};

const inIpv4Subnet = (address: number, s: Ipv4Subnet): boolean => (address & s.mask) >>> 0 === s.net;

/**
 * ipaddr.js's own IPv4 range table (what `IPv4.range()` walks), in its order, as numbers: the
 * first range with a subnet holding the address names it, as in `ipaddr.subnetMatch`.
 */
const IPV4_RANGES: Array<{ name: string; subnets: Ipv4Subnet[] }> = Object.entries(
  (ipaddr.IPv4.prototype as unknown as { SpecialRanges: Record<string, [ipaddr.IPv4, number][]> }).SpecialRanges,
).map(([name, subnets]) => ({ name, subnets: subnets.map(ipv4Subnet) }));

const IPV4_DOCUMENTATION: Ipv4Subnet[] = DOCUMENTATION.filter(([net]) => net.kind() === 'ipv4').map(([net, bits]) =>
  ipv4Subnet([net as ipaddr.IPv4, bits]),
);

/**
 * `refusedRange` of a dotted-quad IPv4 address (Node's `isIPv4`: four decimal octets, no
 * leading zeros), by the same tables as ipaddr.js without its parsing and objects: the check
 * runs on every address a DDNS update or a host edit sets, twice per update (the request's
 * addresses, then the command's), and the library's path costs ~2 us an address (decision 0123).
 */
function refusedIpv4(dottedQuad: string): string | null {
  // `isIPv4` has checked the text: four decimal octets, dots between.
  let address = 0;
  let octet = 0;
  for (let i = 0; i < dottedQuad.length; i++) {
    const c = dottedQuad.charCodeAt(i);
    if (c === 46) {
      address = address * 256 + octet;
      octet = 0;
    } else octet = octet * 10 + (c - 48);
  }
  address = address * 256 + octet;
  for (const subnet of IPV4_DOCUMENTATION) if (inIpv4Subnet(address, subnet)) return null;
  for (const range of IPV4_RANGES) {
    for (const subnet of range.subnets) if (inIpv4Subnet(address, subnet)) return REFUSED[range.name] ?? null;
  }
  return null;
}

/**
 * Why `address` may not be a target (a phrase such as "a loopback address"), or null
 * when it may. A text that is not an address is the caller's business (null here too).
 */
export function refusedRange(address: string): string | null {
  return isIPv4(address) ? refusedIpv4(address) : refusedRangeOfAnyForm(address);
}

/**
 * `refusedRange` through ipaddr.js, for every form it reads: IPv6, and IPv4 written as
 * ipaddr.js also accepts it (`127.1`, octal and hex octets), which `refusedIpv4` leaves to it.
 */
export function refusedRangeOfAnyForm(address: string): string | null {
  if (!ipaddr.isValid(address)) return null;
  const ip = ipaddr.parse(address);
  if (inDocumentation(ip)) return null;
  const range = ip.range();
  if (ip.kind() === 'ipv6') {
    if (ip.match(LOCAL_NAT64)) return 'a local-use NAT64 address';
    const v4 = embeddedIpv4(ip as ipaddr.IPv6, range);
    // `::` and `::1` are all-zero prefixes too, but they are IPv6's own unspecified and loopback.
    if (v4 && range !== 'unspecified' && range !== 'loopback') {
      const inner = refusedRange(v4.toString());
      return inner && `${inner} (as ${CARRIERS[range] ?? 'IPv4-compatible IPv6'})`;
    }
  }
  return REFUSED[range] ?? null;
}

/** The same rule as a switch: refusals apply unless the operator allows private targets. */
export const targetProblem = (address: string, allowPrivate: boolean): string | null =>
  allowPrivate ? null : refusedRange(address);
