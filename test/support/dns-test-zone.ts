import { ZoneIndex, type DnsServer, type ZoneDefinition } from '../../libs/dns-server';

export const testZone = (name: string, ownerAccountId: string | null): ZoneDefinition => ({
  name,
  ownerAccountId,
  soa: {
    mname: 'ns1.dns.test',
    rname: 'hostmaster.dns.test',
    serial: 2024010101,
    refresh: 3600,
    retry: 600,
    expire: 1209600,
    minimum: 120,
  },
  ttl: 3600,
  nameservers: ['ns1.dns.test', 'ns2.dns.test'],
});

/**
 * The zones the DNS server suites answer from: example.com (acct-1) with www (A, AAAA) and
 * alias (CNAME), the dynamic host home.dyn.example.net (acct-9), and whatever `more` adds
 * to example.com for the suite's own cases.
 */
export function testIndex(more: (index: ZoneIndex) => void): ZoneIndex {
  const index = new ZoneIndex();
  index.putZone(testZone('example.com', 'acct-1'));
  index.setRRset('example.com', 'www', 'A', 300, ['192.0.2.10']);
  index.setRRset('example.com', 'www', 'AAAA', 300, ['2001:db8::10']);
  index.setRRset('example.com', 'alias', 'CNAME', 300, ['www.example.com.']);
  more(index);
  index.putZone(testZone('dyn.example.net', null));
  index.setRRset('dyn.example.net', 'home', 'A', 60, ['198.51.100.7'], {
    accountId: 'acct-9',
    domain: 'home.dyn.example.net',
  });
  return index;
}

/** Starts `server` with DNS_UDP_BATCH as given: the UDP path is chosen at start(), from the environment. */
export async function startWith(server: DnsServer, batchEnv: string | undefined): Promise<number> {
  const saved = process.env.DNS_UDP_BATCH;
  if (batchEnv === undefined) delete process.env.DNS_UDP_BATCH;
  else process.env.DNS_UDP_BATCH = batchEnv;
  try {
    return (await server.start()).port;
  } finally {
    if (saved === undefined) delete process.env.DNS_UDP_BATCH;
    else process.env.DNS_UDP_BATCH = saved;
  }
}
