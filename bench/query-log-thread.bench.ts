/**
 * The query-log thread's own CPU per logged query, without sockets, dnsperf or the other
 * servers: the real thread (dist's query-log-thread.js, started as the service starts it,
 * writing to an SQLite file) drains a ring that this thread fills through the DNS server's
 * UDP answer path with the log channel as its sink (dnsperf's mix, batches of 64, one client),
 * paced at QLOG_BENCH_QPS. The log thread's CPU comes from /proc/self/task/<tid>/schedstat (ns
 * on a CPU), so the machine's other load changes the figure far less than it changes qps; the
 * other threads of the process (V8's helpers: GC, compiler) are printed beside it.
 *
 * Run: npm run bench:query-log-thread
 *   (env: QLOG_BENCH_QPS (80000), QLOG_BENCH_SECONDS (10), QLOG_BENCH_ROUNDS (3), QLOG_BENCH_MAX_BATCH: the
 *   writer's batch, THREAD_WRITER's by default)
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DnsServer } from '../libs/dns-server';
import { QueryLogChannel } from '../libs/dns-analytics/application/query-log-channel';
import { queryLogThreadScript, ThreadedQueryLog } from '../libs/dns-analytics/application/threaded-query-log';
import { SqliteQueryLogStore } from '../libs/dns-analytics/infrastructure/sqlite-query-log.store';
import { Metrics } from '../libs/shared/metrics';
import { median } from './dns/stats';
import { benchZoneIndex, encodedBenchQueries } from './dns/in-process';

const QPS = Number(process.env.QLOG_BENCH_QPS ?? 80_000);
const SECONDS = Number(process.env.QLOG_BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.QLOG_BENCH_ROUNDS ?? 3);
const BATCH = 64;
const TICK_MS = 10;
const SLOT = 512;
const MAX_RESPONSE = 1232;

const queries = encodedBenchQueries(200_000);

/** ns on a CPU of this process's threads: the query-log thread's, and all others' but this (main) thread's. */
function threadNs(): { log: number; other: number; logKernelTicks: number } {
  let log = 0;
  let other = 0;
  let logKernelTicks = 0;
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const comm = readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim();
      const ns = Number(readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      if (comm === 'query-log') {
        log += ns;
        const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
        logKernelTicks += Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[12]);
      } else if (Number(tid) !== process.pid) other += ns;
    } catch {
      // the thread ended
    }
  }
  return { log, other, logKernelTicks };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<void> {
  const script = queryLogThreadScript();
  if (!script) throw new Error('build first: npm run build');
  const dir = mkdtempSync(join(tmpdir(), 'qlog-bench-'));
  const file = join(dir, 'dns-query-log.db');
  const log = await ThreadedQueryLog.start(
    script,
    { kind: 'sqlite', file },
    new Metrics(),
    (e) => console.error(`log: ${e}`),
    process.env.QLOG_BENCH_MAX_BATCH ? { maxBatch: Number(process.env.QLOG_BENCH_MAX_BATCH) } : undefined,
  );
  const sink = new QueryLogChannel(log.openChannel());
  const server = new DnsServer({ host: '127.0.0.1', port: 0, index: benchZoneIndex(), sink });
  const { answer, sent } = server.udpResponder;
  const input = Buffer.alloc(BATCH * SLOT);
  const out = Buffer.alloc(BATCH * MAX_RESPONSE);
  const peer = () => '127.0.0.1';
  let next = 0;
  let answered = 0;
  const answerFor = async (ms: number) => {
    const perTick = Math.round((QPS * TICK_MS) / 1000);
    const until = Date.now() + ms;
    let due = Date.now();
    while (Date.now() < until) {
      for (let done = 0; done < perTick; done += BATCH) {
        const started = performance.now();
        const n = Math.min(BATCH, perTick - done);
        for (let s = 0; s < n; s++) {
          const msg = queries[next++ % queries.length];
          msg.copy(input, s * SLOT);
          answer(input, s * SLOT, msg.length, peer, started, out, s * MAX_RESPONSE);
        }
        sent(started, n);
        answered += n;
      }
      due += TICK_MS;
      await sleep(Math.max(0, due - Date.now()));
    }
  };
  // Warm-up: the IP data loads, the JIT settles, the response cache fills.
  await answerFor(3000);
  await log.flush();
  const perK: number[] = [];
  const otherPerK: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const before = threadNs();
    const from = answered;
    await answerFor(SECONDS * 1000);
    await log.flush();
    const after = threadNs();
    const n = answered - from;
    perK.push(((after.log - before.log) / 1e6 / n) * 1000);
    otherPerK.push(((after.other - before.other) / 1e6 / n) * 1000);
    // USER_HZ ticks (10 ms): coarse, but says how much of the thread's time is system calls (SQLite's writes).
    const kernelPerK = (((after.logKernelTicks - before.logKernelTicks) * 10) / n) * 1000;
    console.log(
      `round ${round + 1}: ${n} queries, query-log thread ${perK[round].toFixed(3)} ms CPU per 1,000 queries (of which in the kernel ${kernelPerK.toFixed(3)}), other threads ${otherPerK[round].toFixed(3)}`,
    );
  }
  const dropped = log.dropped;
  await log.close();
  const store = new SqliteQueryLogStore(file);
  const stored = (await store.recent({ accountId: 1, domain: null }, 0, 10)).length;
  await store.close();
  // Closed: the WAL is checkpointed into the file. Rows are every query answered (less the dropped).
  const bytesPerQuery = statSync(file).size / (answered - dropped);
  rmSync(dir, { recursive: true, force: true });
  console.log(
    `query-log thread: ${median(perK).toFixed(3)} ms CPU per 1,000 logged queries (median of ${ROUNDS} rounds at ${QPS} qps); other threads ${median(otherPerK).toFixed(3)}; dropped ${dropped}; ${bytesPerQuery.toFixed(1)} bytes of file per query; recent rows read back ${stored}`,
  );
  process.exit(0);
}

void main();
