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
