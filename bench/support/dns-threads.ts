/**
 * Starts a build's DNS threads over an event store the way the DNS role does (decision 0112):
 * one thread that folds the events and, with more than one, followers fed by it. For benches
 * that load another build from its dist folder, so everything build-specific is passed in.
 */
export interface DnsThreadsBuild {
  /** The build's ThreadedDns class. */
  threadedDns: any;
  /** The build's shareFold, absent in builds where every thread folds for itself. */
  shareFold?: (leader: unknown, followers: unknown[]) => void;
  /** The build's compiled dns-thread.js. */
  script: string;
}

export async function startDnsThreads(
  build: DnsThreadsBuild,
  store: unknown,
  options: { port: number; zone: string; threads: number; secondaries?: string[] },
): Promise<{ leader: any; followers: any[]; all: any[] }> {
  const shared = options.threads > 1;
  const settings = {
    dnsHost: '127.0.0.1',
    dnsPort: options.port,
    ddnsZones: [options.zone],
    nameservers: ['ns1.bench.test'],
    udpOnly: true,
    reusePort: shared,
    transfers: {
      secondaries: options.secondaries ?? [],
      secondaryTsigKey: null,
      secretKey: 'bench-secret-key-bench-secret-key',
    },
  };
  // The query log is not part of these benches: no channel, nothing forwarded.
  const sink = { openQueryChannel: () => null, forwardsQueries: false, recordTally: () => undefined };
  const leader = new build.threadedDns(
    build.script,
    store,
    { ...settings, fold: shared ? 'leader' : undefined },
    sink,
    () => undefined,
  );
  const followers: any[] = [];
  build.shareFold?.(leader, followers);
  await leader.start();
  for (let i = 1; i < options.threads; i++) {
    const follower = new build.threadedDns(
      build.script,
      store,
      { ...settings, fold: 'follower' },
      sink,
      () => undefined,
    );
    followers.push(follower);
    build.shareFold?.(leader, followers);
    await follower.start();
  }
  return { leader, followers, all: [leader, ...followers] };
}

/** The DDNS host the DNS benches create as host `i` of `zone`: account 1..20 by number, one A record. */
export const benchHostName = (i: number, zone: string): string => `h${i}.${zone}`;

interface AppendingStore {
  appendToStream(stream: string, events: unknown[], expected: 'no_stream' | 'any'): Promise<unknown>;
}

/** Appends `count` DomainCreated events (one stream per host), 500 at a time. */
export async function createBenchHosts(store: AppendingStore, count: number, zone: string): Promise<void> {
  const created = new Date().toISOString();
  for (let from = 0; from < count; from += 500) {
    const appends = [];
    for (let i = from; i < Math.min(count, from + 500); i++) {
      const data = {
        domain_id: i,
        account_id: 1 + (i % 20),
        fqdn: benchHostName(i, zone),
        record_type: 'A',
        record_ip: '203.0.113.1',
        ttl: 60,
        created_at: created,
      };
      appends.push(store.appendToStream(`domain-${i}`, [{ type: 'DomainCreated', data, metadata: {} }], 'no_stream'));
    }
    await Promise.all(appends);
  }
}

/** Appends host `host`'s change to `ipv4`, as a DDNS update records it. */
export function appendHostChange(store: AppendingStore, host: number, zone: string, ipv4: string): Promise<unknown> {
  const data = {
    domain_id: host,
    account_id: 1 + (host % 20),
    fqdn: benchHostName(host, zone),
    addresses: { ipv4, ipv6: null },
    source: 'ddns',
  };
  return store.appendToStream(`domain-${host}`, [{ type: 'DomainAddressesChanged', data }], 'any');
}
