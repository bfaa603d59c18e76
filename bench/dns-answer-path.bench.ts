/**
 * The DNS threads' user-space answer path alone, without sockets or a kernel: UDP answers
 * (mostly from the response cache) through DnsServer's responder (as the batch listener calls it: 64 queries, then
 * the batch is "sent"), with the query log's channel as the sink (as a DNS thread runs
 * with the log on) and with no sink (log off). CPU per query from process.cpuUsage, the two
 * alternated in one process so the machine's load hits both alike. The channel's ring is
 * drained between rounds, outside the timed part: that is what the answering thread pays for
 * the log. The drain (the query-log thread's part up to the columns the writer takes) is
 * timed apart.
 *
 * Run: npm run build && node dist/bench/dns-answer-path.bench.js   (env: ANSWER_BENCH_ROUNDS)
 */
import { DnsServer, type QuerySink } from '../libs/dns-server';
import { DROPPED, newControl, QueryLogChannel } from '../libs/dns-analytics/application/query-log-channel';
import { newQueryRing, QueryRingReader, WireStrings } from '../libs/dns-analytics/application/query-ring';
import { benchZoneIndex, encodedBenchQueries } from './dns/in-process';

const ROUNDS = Number(process.env.ANSWER_BENCH_ROUNDS ?? 7);
const BATCH = 64;
const BATCHES_PER_ROUND = 10_000;
const SLOT = 512;
const MAX_RESPONSE = 1232;

const queries = encodedBenchQueries(200_000);

function answerer(sink: QuerySink | undefined): (batches: number) => void {
  const server = new DnsServer({ host: '127.0.0.1', port: 0, index: benchZoneIndex(), sink });
  const { answer, sent } = server.udpResponder;
  const input = Buffer.alloc(BATCH * SLOT);
  const out = Buffer.alloc(BATCH * MAX_RESPONSE);
  const peer = () => '192.0.2.1';
  let next = 0;
  return (batches) => {
    for (let b = 0; b < batches; b++) {
      const started = performance.now();
      for (let s = 0; s < BATCH; s++) {
        const msg = queries[next++ % queries.length];
        msg.copy(input, s * SLOT);
        answer(input, s * SLOT, msg.length, peer, started, out, s * MAX_RESPONSE);
      }
      sent(started, BATCH);
    }
  };
}

/** A ring that holds a whole round (640,000 queries), so nothing is dropped between drains. */
const BENCH_RING_BYTES = 128 * 1024 * 1024;

function logChannel() {
  const ring = newQueryRing(BENCH_RING_BYTES);
  const control = newControl();
  const strings = new WireStrings();
  const reader = new QueryRingReader(ring, strings);
  const drain = () => {
    strings.renewIfFull();
    return reader.drain()?.count ?? 0;
  };
  return { channel: new QueryLogChannel({ ring, control }), drain, dropped: () => Atomics.load(control, DROPPED) };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

async function main(): Promise<void> {
  const log = logChannel();
  const runs = { 'log on': answerer(log.channel), 'log off': answerer(undefined) };
  for (const run of Object.values(runs)) run(2000); // warm-up: JIT and the response cache
  log.drain();
  const perQuery: Record<string, number[]> = { 'log on': [], 'log off': [], drain: [] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, run] of Object.entries(runs)) {
      const before = process.cpuUsage();
      run(BATCHES_PER_ROUND);
      const used = process.cpuUsage(before);
      perQuery[name].push((used.user + used.system) / (BATCHES_PER_ROUND * BATCH));
      if (name !== 'log on') continue;
      const drainStart = process.cpuUsage();
      const drained = log.drain();
      const drainUsed = process.cpuUsage(drainStart);
      perQuery.drain.push((drainUsed.user + drainUsed.system) / drained);
      await new Promise((r) => setImmediate(r));
    }
  }
  console.log(`queries dropped by the ring: ${log.dropped()}`);
  for (const [name, xs] of Object.entries(perQuery))
    console.log(
      `${name.padEnd(7)} ${median(xs).toFixed(3)} µs CPU per answered query (median of ${xs.length}: ${xs.map((x) => x.toFixed(3)).join(', ')})`,
    );
  console.log(
    `the log on the answering thread: ${(median(perQuery['log on']) - median(perQuery['log off'])).toFixed(3)} ` +
      `µs per query; the log thread's drain: ${median(perQuery.drain).toFixed(3)} µs per query`,
  );
  process.exit(0);
}

void main();
