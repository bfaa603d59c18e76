/**
 * What following other processes' commits costs the embedded read store's readers: CPU
 * time per cached `_id` lookup with the check (one `PRAGMA data_version` per event-loop
 * turn) against the same store without it, side by side in one run; the same while
 * another store on the file (another process: its own connections and writer id) commits
 * every 20 ms, which drops the reader's cache each time; and how long a commit there
 * takes to be seen here.
 *
 * Run: npm run build && node dist/bench/readstore-processes.bench.js
 *   env: READSTORE_PROCESSES_READS (200,000)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedReadStore } from '../libs/readstore/embedded/embedded-read-store';

const DOCS = 20_000;
const READS = Number(process.env.READSTORE_PROCESSES_READS ?? 200_000);
/** Reads per event-loop turn: a request or a projection batch reads a few documents per turn. */
const PER_TURN = 10;
const turn = () => new Promise((r) => setImmediate(r));

async function cpuPerRead(store: EmbeddedReadStore): Promise<number> {
  const c = store.collection('hosts');
  const start = process.cpuUsage();
  for (let i = 0; i < READS; i += PER_TURN) {
    for (let j = 0; j < PER_TURN; j++) await c.findOne({ _id: `h${(i + j) % 2000}` });
    await turn();
  }
  const used = process.cpuUsage(start);
  return (used.user + used.system) / READS;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'rs-processes-'));
  const file = join(dir, 'readmodels.db');
  console.log(
    `read store across processes; load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  const worker = new EmbeddedReadStore({ file });
  const hosts = worker.collection('hosts');
  for (let i = 0; i < DOCS; i++)
    await hosts.insertOne({ _id: `h${i}`, fqdn: `h${i}.dyn.test`, ipv4: '192.0.2.1', n: 0 });
  await worker.flush();

  const following = new EmbeddedReadStore({ file });
  const blind = new EmbeddedReadStore({ file, followOtherProcesses: false });
  // Warm both caches, then alternate the measurements so the machine's load hits both alike.
  await cpuPerRead(following);
  await cpuPerRead(blind);
  const quiet = { following: [] as number[], blind: [] as number[] };
  for (let round = 0; round < 3; round++) {
    quiet.following.push(await cpuPerRead(following));
    quiet.blind.push(await cpuPerRead(blind));
  }
  const best = (xs: number[]) => Math.min(...xs);
  console.log(
    `cached _id lookup, nobody else writing: ${best(quiet.following).toFixed(2)} µs CPU following other ` +
      `processes, ${best(quiet.blind).toFixed(2)} µs without ` +
      `(${(best(quiet.following) / best(quiet.blind)).toFixed(2)}×)`,
  );

  // Another process commits every 20 ms (a worker applying a live stream).
  let n = 0;
  const writing = setInterval(() => void hosts.updateOne({ _id: `h${n++ % DOCS}` }, { $inc: { n: 1 } }), 20);
  const busy = await cpuPerRead(following);
  clearInterval(writing);
  await worker.flush();
  console.log(
    `cached _id lookup, another process committing every 20 ms: ${busy.toFixed(2)} µs CPU (its commits drop this process's cache)`,
  );

  // Seen how soon: a commit there, polled for here once per turn.
  const delays: number[] = [];
  const mine = following.collection('hosts');
  for (let i = 0; i < 50; i++) {
    await mine.findOne({ _id: 'h1' }); // cached here
    await hosts.updateOne({ _id: 'h1' }, { $set: { ipv4: `192.0.2.${i + 2}` } });
    await worker.flush();
    const committed = performance.now();
    while ((await mine.findOne({ _id: 'h1' }))?.ipv4 !== `192.0.2.${i + 2}`) await turn();
    delays.push(performance.now() - committed);
  }
  delays.sort((a, b) => a - b);
  console.log(
    `a commit in another process is read here after ${delays[Math.floor(delays.length / 2)].toFixed(3)} ms ` +
      `(median of 50; max ${delays.at(-1)!.toFixed(3)} ms)`,
  );

  await following.close();
  await blind.close();
  await worker.close();
  rmSync(dir, { recursive: true, force: true });
}

void main();
