/**
 * Our DNS server as the benchmark runs it: a cluster primary and one worker per core, each
 * worker with its own index (in production each fed by its own subscription) and a query
 * sink that batches every answered query off the hot path, as the query log will.
 * Usage: node our-server.js <port> [workers]
 */
import cluster from 'node:cluster';
import { availableParallelism } from 'node:os';
import { BufferedQuerySink, DnsServer, ZoneIndex } from '../../libs/dns-server';
import { BENCH_ZONE, NAMESERVERS, SOA, benchRRsets } from './zone';

const port = Number(process.argv[2]);
const workers = Number(process.argv[3] ?? availableParallelism());

if (cluster.isPrimary) {
  let ready = 0;
  for (let i = 0; i < workers; i++) {
    cluster.fork().on('message', (m: unknown) => {
      if (m === 'ready' && ++ready === workers) console.log('READY');
    });
  }
  const stop = () => {
    for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGTERM');
    setTimeout(() => {
      for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGKILL');
      process.exit(1);
    }, 5000).unref();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  cluster.on('exit', () => {
    if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
  });
} else {
  void startWorker();
}

async function startWorker(): Promise<void> {
  // The primary is gone (killed outright): nobody will stop this worker otherwise.
  process.on('disconnect', () => process.exit(1));
  process.on('SIGTERM', () => process.exit(0));
  const index = new ZoneIndex();
  index.putZone({ name: BENCH_ZONE, ownerAccountId: 'bench', soa: SOA, ttl: 3600, nameservers: NAMESERVERS });
  for (const rrset of benchRRsets()) index.setRRset(BENCH_ZONE, rrset.subname, rrset.type, 300, rrset.records);
  // Stands in for the query-log writer: rolls queries up per domain and rcode, as analytics will.
  const rollup = new Map<string, number>();
  const sink = new BufferedQuerySink((batch) => {
    for (const q of batch) {
      const key = `${q.domain}|${q.rcode}`;
      rollup.set(key, (rollup.get(key) ?? 0) + 1);
    }
  });
  const server = new DnsServer({ host: '127.0.0.1', port, index, sink: process.env.BENCH_NO_SINK ? undefined : sink });
  await server.start();
  process.send!('ready');
  const shutdown = async () => {
    await server.stop();
    await sink.close();
    console.log(`SINK worker=${process.pid} delivered=${sink.delivered} dropped=${sink.dropped}`);
    process.exit(0);
  };
  process.removeAllListeners('SIGTERM');
  process.on('SIGTERM', shutdown);
}
