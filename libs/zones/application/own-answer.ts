import { ZoneIndex } from '../../dns-server';
import type { RRset } from '../domain/zone.events';

/** Most CNAMEs a resolver would chase (RFC 1034 leaves it open; BIND stops at 16, the index at 8 a zone). */
const MAX_CHASE = 8;

export interface OwnZone {
  name: string;
  rrsets: RRset[];
}

/**
 * Whether the claimant's own zones here answer `name` TXT with `token` as a resolver asking
 * this service would see it: at the name, through a wildcard, or through CNAMEs among those
 * zones. The zones are loaded into a ZoneIndex of their own, so the answer is the DNS
 * server's own logic rather than a second reading of the records.
 */
export function ownZonesAnswer(zones: readonly OwnZone[], name: string, token: string): boolean {
  const index = new ZoneIndex();
  for (const z of zones) {
    index.putZone({
      name: z.name,
      ownerAccountId: null,
      soa: {
        mname: 'ns.invalid',
        rname: 'hostmaster.invalid',
        serial: 1,
        refresh: 1,
        retry: 1,
        expire: 1,
        minimum: 60,
      },
      ttl: 60,
      nameservers: ['ns.invalid'],
    });
    for (const r of z.rrsets) {
      try {
        index.setRRset(z.name, r.subname, r.type, r.ttl, r.records);
      } catch {
        // A record the DNS server refuses is not served either.
      }
    }
  }
  let qname = name;
  for (let hop = 0; hop < MAX_CHASE; hop++) {
    const { answers } = index.lookup(qname, 'TXT');
    const texts = answers
      .filter((a) => a.type === 'TXT')
      .map((a) => ((a as { data: Buffer[] }).data ?? []).map((b) => b.toString()).join(''));
    if (texts.includes(token)) return true;
    const cnames = answers.filter((a) => a.type === 'CNAME');
    if (texts.length > 0 || cnames.length === 0) return false;
    qname = String((cnames[cnames.length - 1] as { data: string }).data);
  }
  return false;
}
