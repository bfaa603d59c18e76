/**
 * The DNS fold of a DDNS update, isolated: the real leader code (DnsIndexFeeder over its own
 * read-only SqliteEventStore connection, as a DNS thread opens it; the index tracked by an
 * IndexChangeLog) and the real follower code (applyIndexBatch into a second ZoneIndex), in one
 * thread with nothing else running, each step timed by the process's CPU time (getrusage: other
 * load on the machine does not count). HOSTS hosts are
 * created, then UPDATES address changes are appended BATCH per commit (the group commits the
 * leader finds at each look at the commit counter in bench:ddns: ~1 ms apart, a few updates each),
 * and after each commit the leader is told (notifyAppended) and awaited, then its batch is drained
 * and installed in the follower. Prints µs per update for: the leader's read and fold (readBlock,
 * decoding, the feeder, the index, serials), the drain (the batch written), the follower's
 * install, and the batch's size in bytes per update.
 *
 * Run: npm run bench:dns-fold (npm run build && node dist/bench/dns-fold.bench.js)
 *   env: DNS_FOLD_HOSTS (20000), DNS_FOLD_UPDATES (30000), DNS_FOLD_BATCH (3), DNS_FOLD_ROUNDS (5),
 *        DNS_FOLD_DIST (another build's dist folder, e.g. /work/main/dist: its fold measured instead)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { appendHostChange, createBenchHosts } from './support/dns-threads';

/* eslint-disable @typescript-eslint/no-require-imports */
/** The build whose fold is measured: this one, or another's dist folder (DNS_FOLD_DIST) for before/after. */
const DIST = process.env.DNS_FOLD_DIST ?? join(__dirname, '..');
const { ZoneIndex } = require(join(DIST, 'libs/dns-server/zone-index'));
const { applyIndexBatch, IndexChangeLog, indexSnapshot } = require(join(DIST, 'libs/dns-server/index-replica'));
const { DnsIndexFeeder } = require(join(DIST, 'libs/dns-role/dns-index-feeder'));
const { SqliteEventStore } = require(join(DIST, 'libs/eventstore/sqlite/sqlite-event-store'));
/* eslint-enable @typescript-eslint/no-require-imports */

const HOSTS = Number(process.env.DNS_FOLD_HOSTS ?? 20_000);
const UPDATES = Number(process.env.DNS_FOLD_UPDATES ?? 30_000);
const BATCH = Number(process.env.DNS_FOLD_BATCH ?? 3);
const ROUNDS = Number(process.env.DNS_FOLD_ROUNDS ?? 5);
const ZONE = 'dyn.bench.test';

/** CPU time of the process (µs): nothing else runs in it while a step is timed, and the machine's other load is not counted. */
const cpu = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'dns-fold-'));
  const file = join(dir, 'events.db');
  const writer = new SqliteEventStore({ file, synchronous: 'NORMAL' });
  await createBenchHosts(writer, HOSTS, ZONE);
  // The leader's own connection, as dns-thread.ts opens it.
  const reader = new SqliteEventStore({ file, pollIntervalMs: 60_000, pageCacheMiB: 2, singleSubscription: true });
  const leaderIndex = new ZoneIndex();
  const changes = new IndexChangeLog(leaderIndex);
  const feeder = new DnsIndexFeeder(reader, leaderIndex, {
    ddnsZones: [ZONE],
    nameservers: ['ns1.bench.test'],
    log: () => undefined,
  });
  await feeder.start();
  const followerIndex = new ZoneIndex();
  applyIndexBatch(followerIndex, indexSnapshot(leaderIndex));
  changes.discard();

  let change = 0;
  const rows: Array<{ fold: number; drain: number; install: number; bytes: number }> = [];
  for (let round = 1; round <= ROUNDS; round++) {
    let fold = 0;
    let drain = 0;
    let install = 0;
    let bytes = 0;
    for (let n = 0; n < UPDATES; n += BATCH) {
      const appends: Promise<unknown>[] = [];
      for (let k = 0; k < BATCH; k++) {
        const host = (++change * 7919) % HOSTS;
        appends.push(appendHostChange(writer, host, ZONE, `198.51.${(change >> 8) & 255}.${change & 255}`));
      }
      await Promise.all(appends);
      const head = await writer.headPosition();
      const t0 = cpu();
      reader.notifyAppended();
      await feeder.waitFor(head);
      const t1 = cpu();
      const batch = changes.drain() as ArrayBuffer;
      const t2 = cpu();
      applyIndexBatch(followerIndex, batch);
      const t3 = cpu();
      fold += t1 - t0;
      drain += t2 - t1;
      install += t3 - t2;
      bytes += batch.byteLength;
    }
    const per = (us: number) => us / UPDATES;
    const row = { fold: per(fold), drain: per(drain), install: per(install), bytes: bytes / UPDATES };
    rows.push(row);
    console.log(
      `round ${round}: ${UPDATES} updates, ${BATCH} per commit: leader fold ${row.fold.toFixed(2)} µs, ` +
        `drain ${row.drain.toFixed(2)} µs, follower install ${row.install.toFixed(2)} µs per update; ` +
        `batch ${row.bytes.toFixed(0)} bytes per update`,
    );
  }
  console.log(
    `\nmedian of ${ROUNDS} rounds (${HOSTS} hosts, ${BATCH} updates per commit), µs per update: ` +
      `leader fold ${median(rows.map((r) => r.fold)).toFixed(2)}, drain ${median(rows.map((r) => r.drain)).toFixed(2)}, ` +
      `follower install ${median(rows.map((r) => r.install)).toFixed(2)}; ` +
      `batch ${median(rows.map((r) => r.bytes)).toFixed(0)} bytes per update`,
  );
  await feeder.stop();
  await reader.close();
  await writer.close();
  rmSync(dir, { recursive: true, force: true });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
