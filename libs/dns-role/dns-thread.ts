/**
 * Worker-thread entry of the `dns` role when the service runs on the embedded event
 * store: the index feeder and the DNS server get a core of their own instead of sharing
 * the API's event loop. The thread reads the event store through its own SQLite
 * connection. The main thread gets counts and binned answer times for the metrics every
 * 100 ms; answered queries go encoded straight to the query-log thread when there is one
 * (its channel comes in workerData), else as objects to the main thread's sink.
 */
import { getSystemErrorName } from 'node:util';
import { parentPort, workerData } from 'node:worker_threads';
import { BufferedQuerySink, type QuerySink } from '../dns-server';
import { QueryLogChannel } from '../dns-analytics/application/query-log-channel';
import { nameThisThread } from '../shared/thread-name';
import { loadUdpBatch } from '../dns-server/udp-batch';
import { SqliteEventStore } from '../eventstore/sqlite/sqlite-event-store';
import { DnsRole } from './dns-role';
import {
  COMMITS,
  SLEEPING,
  type DnsThreadCommand,
  type DnsThreadData,
  type DnsThreadMessage,
} from './dns-thread.protocol';
import { QueryTally } from './query-tally';

/** How often the thread reports its answered queries. */
const TALLY_INTERVAL_MS = 100;

type WaitAsync = (
  view: Int32Array,
  index: number,
  value: number,
) => { async: boolean; value: Promise<unknown> | string };

/** While commits keep coming, the thread looks at the counter this often instead of being woken. */
const BUSY_POLL_MS = 1;
/** Looks without finding a commit before the thread goes to sleep until woken. */
const IDLE_LOOKS_BEFORE_SLEEP = 50;

/**
 * Wakes the store's subscriptions whenever the commit counter moves. Under load the
 * thread looks every millisecond, so the main thread pays nothing per commit; once idle it
 * sleeps and the next commit wakes it (a wake-up costs the main thread about as much as a
 * message). The looks are one repeating timer, not a timer and a promise each: a thousand
 * a second, they were a tenth of a folding thread's time (decision 0112). Waking the thread at
 * every commit instead was measured and not kept: more DNS polls and CPU per update in
 * bench:ddns (decision 0120).
 */
function followCommits(commits: Int32Array, store: SqliteEventStore, stopped: () => boolean): void {
  const waitAsync = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync;
  let seen = Atomics.load(commits, COMMITS);
  let idle = 0;
  let timer: NodeJS.Timeout | null = null;
  const busy = () => {
    idle = 0;
    timer = setInterval(look, BUSY_POLL_MS);
  };
  const look = () => {
    if (stopped()) return void clearInterval(timer!);
    const now = Atomics.load(commits, COMMITS);
    if (now !== seen) {
      seen = now;
      idle = 0;
      store.notifyAppended();
    } else if (++idle >= IDLE_LOOKS_BEFORE_SLEEP) {
      clearInterval(timer!);
      Atomics.store(commits, SLEEPING, 1);
      // Returns at once when a commit came after `seen` was read: none is missed.
      const wait = waitAsync(commits, COMMITS, seen);
      const wake = () => {
        Atomics.store(commits, SLEEPING, 0);
        if (stopped()) return;
        busy();
        look();
      };
      if (wait.async) void (wait.value as Promise<unknown>).then(wake);
      else wake();
    }
  };
  busy();
}

/**
 * This thread's page cache on the event store. It reads the log once at start and then
 * only its tail, so SQLite's default (16 MiB per connection, one per DNS thread) filled
 * with pages never read again as the log grew: resident memory that rose with history.
 */
const DNS_THREAD_EVENT_PAGE_CACHE_MIB = 2;

/** Runs this thread on these CPUs (cpu-locality.ts); a refusal is logged and the thread runs where it did. */
function runOn(cpus: number[], log: (msg: string, extra: Record<string, unknown>) => void): void {
  const batch = loadUdpBatch();
  const rc = batch.ok ? batch.addon.pinThread(cpus) : null;
  if (rc !== 0) log('dns thread cpus not set', { cpus, reason: batch.ok ? getSystemErrorName(rc!) : batch.reason });
}

if (parentPort) {
  const port = parentPort;
  const post = (m: DnsThreadMessage) => port.postMessage(m);
  const settings = workerData as DnsThreadData;
  nameThisThread('dns');
  const log = (msg: string, extra: Record<string, unknown>) => post({ type: 'log', msg, extra });
  if (settings.cpu !== undefined) runOn([settings.cpu], log);
  // Reads only: appends go through the main thread's store, which says when it committed.
  // A follower reads no events: its leader ships it the index's changes (index-replica.ts).
  const store =
    settings.fold === 'follower'
      ? null
      : new SqliteEventStore({
          file: settings.eventsFile,
          pollIntervalMs: settings.pollIntervalMs,
          pageCacheMiB: DNS_THREAD_EVENT_PAGE_CACHE_MIB,
          // One subscription (the index feeder): nothing to share between cursors.
          singleSubscription: true,
        });
  const tally = new QueryTally();
  const reporter = setInterval(() => {
    const report = tally.drain();
    if (report) post({ type: 'tally', report });
  }, TALLY_INTERVAL_MS);
  const forward = settings.forwardQueries
    ? new BufferedQuerySink((batch) => post({ type: 'queries', batch }), {
        maxBatch: 512,
        flushIntervalMs: TALLY_INTERVAL_MS,
      })
    : null;
  // Straight to the query-log thread, encoded, when there is one; else as objects to the main thread.
  const channel = settings.queryLog ? new QueryLogChannel(settings.queryLog) : null;
  const sink: QuerySink | undefined = channel ?? forward ?? undefined;
  // The tally counts every answer for the metrics; the sink, when there is one, gets them as objects.
  // UPDATEs are applied by the main thread (appends go through its store); answered by id.
  const updates = new Map<number, (rcode: number) => void>();
  let nextUpdate = 0;
  const role = new DnsRole(store, settings, sink, (msg, extra) => post({ type: 'log', msg, extra }), tally, {
    activity: (activity) => post({ type: 'transfer', activity }),
    applyUpdate: (request) =>
      new Promise<number>((resolve) => {
        const id = ++nextUpdate;
        updates.set(id, resolve);
        post({ type: 'update', id, request });
      }),
  });

  let stopped = false;
  if (store) followCommits(settings.commits, store, () => stopped);
  port.on('message', (command: DnsThreadCommand) => {
    if (command !== 'stop') {
      if (command.type === 'follower') return role.addFollower(command);
      if (command.type === 'leader') return role.follow(command);
      if (command.type === 'cpus') return runOn(command.cpus, log);
      updates.get(command.id)?.(command.rcode);
      updates.delete(command.id);
      return;
    }
    stopped = true;
    void (async () => {
      await role.stop();
      clearInterval(reporter);
      await forward?.close();
      channel?.close();
      const report = tally.drain();
      if (report) post({ type: 'tally', report });
      await store?.close();
      post({ type: 'stopped' });
    })();
  });
  role.start().then(
    (boundPort) => post({ type: 'ready', port: boundPort }),
    (e: Error) => post({ type: 'failed', error: e.message }),
  );
}
