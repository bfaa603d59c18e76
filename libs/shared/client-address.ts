import { isIPv4, isIPv6 } from 'node:net';

/**
 * The key a per-client cap counts a connection under (SMTP sessions, DNS TCP connections):
 * an IPv4 address (IPv4-mapped IPv6 included, what a dual-stack socket reports), or the
 * /64 an IPv6 address is in, since one subscriber usually holds a whole /64 and could
 * otherwise open each connection from a new address. Anything else is its own key.
 */
export function clientKey(remote: string | undefined): string {
  const ip = remote ?? '';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)?.[1];
  if (mapped) return mapped;
  if (isIPv4(ip) || !isIPv6(ip)) return ip;
  const groups = ipv6Groups(ip.replace(/%.*$/, ''));
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, a trailing dotted IPv4 as two groups). */
function ipv6Groups(ip: string): number[] {
  const parse = (part: string): number[] =>
    part === ''
      ? []
      : part.split(':').flatMap((g) => {
          if (!g.includes('.')) return [parseInt(g, 16)];
          const [a, b, c, d] = g.split('.').map(Number);
          return [(a << 8) | b, (c << 8) | d];
        });
  const [head, tail] = ip.split('::');
  if (tail === undefined) return parse(head);
  const [h, t] = [parse(head), parse(tail)];
  return [...h, ...new Array<number>(8 - h.length - t.length).fill(0), ...t];
}
