import * as dnsPacket from 'dns-packet';
import { ZoneIndex } from '../../libs/dns-server';
import { BENCH_ZONE, NAMESERVERS, SOA, benchRRsets, dnsperfQueries } from './zone';

/** The bench zone in a zone index of this process, for benches that drive the answer path without sockets. */
export function benchZoneIndex(): ZoneIndex {
  const index = new ZoneIndex();
  index.putZone({ name: BENCH_ZONE, ownerAccountId: '1', soa: SOA, ttl: 3600, nameservers: NAMESERVERS });
  for (const r of benchRRsets()) index.setRRset(BENCH_ZONE, r.subname, r.type, 300, r.records);
  return index;
}

/**
 * dnsperf's mix (zone.ts): A, AAAA and TXT of the zone's names and 10 % missing names, most of
 * them seen once (new strings for the log channel's table, full-path answers), as query packets.
 */
export function encodedBenchQueries(count: number): Buffer[] {
  return dnsperfQueries(count)
    .trim()
    .split('\n')
    .map((line, i) => {
      const [name, type] = line.split(' ');
      return dnsPacket.encode({
        type: 'query',
        id: i & 0xffff,
        flags: dnsPacket.RECURSION_DESIRED,
        questions: [{ name, type: type as 'A' }],
      });
    });
}
