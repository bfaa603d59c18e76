/** The benchmark's zone, generated identically for our server, NSD and dnsperf. */
export const BENCH_ZONE = 'bench.test';
export const BENCH_NAMES = 10_000;
export const NAMESERVERS = ['ns1.bench.test', 'ns2.bench.test'];
export const SOA = {
  mname: 'ns1.bench.test',
  rname: 'hostmaster.bench.test',
  serial: 1,
  refresh: 3600,
  retry: 600,
  expire: 604800,
  minimum: 300,
};

export interface BenchRRset {
  subname: string;
  type: 'A' | 'AAAA' | 'TXT';
  records: string[];
}

/** host0..host9999 each with an A record; every fourth also AAAA, every tenth a TXT. */
export function* benchRRsets(): Generator<BenchRRset> {
  for (let i = 0; i < BENCH_NAMES; i++) {
    const subname = `host${i}`;
    yield { subname, type: 'A', records: [`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`] };
    if (i % 4 === 0) yield { subname, type: 'AAAA', records: [`2001:db8::${i.toString(16)}`] };
    if (i % 10 === 0) yield { subname, type: 'TXT', records: [`"bench record ${i}"`] };
  }
}

export function nsdZoneFile(): string {
  const lines = [
    `$ORIGIN ${BENCH_ZONE}.`,
    '$TTL 300',
    `@ 3600 IN SOA ${SOA.mname}. ${SOA.rname}. ${SOA.serial} ${SOA.refresh} ${SOA.retry} ${SOA.expire} ${SOA.minimum}`,
    ...NAMESERVERS.map((ns) => `@ 3600 IN NS ${ns}.`),
    ...NAMESERVERS.map((ns, i) => `${ns.split('.')[0]} 300 IN A 127.0.0.${i + 1}`),
  ];
  for (const rrset of benchRRsets())
    for (const r of rrset.records) lines.push(`${rrset.subname} 300 IN ${rrset.type} ${r}`);
  return lines.join('\n') + '\n';
}

/**
 * dnsperf's input: mostly hits, some NODATA and NXDOMAIN, shuffled with a fixed seed so both
 * servers see the same sequence.
 */
export function dnsperfQueries(count = 100_000): string {
  let seed = 42;
  const next = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const roll = next(100);
    const host = `host${next(BENCH_NAMES)}.${BENCH_ZONE}`;
    if (roll < 75) lines.push(`${host} A`);
    else if (roll < 85) lines.push(`${host} AAAA`);
    else if (roll < 90) lines.push(`${host} TXT`);
    else lines.push(`missing${next(1_000_000)}.${BENCH_ZONE} A`);
  }
  return lines.join('\n') + '\n';
}
