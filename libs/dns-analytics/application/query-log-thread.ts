/**
 * Worker-thread entry of the query-log pipeline: drains the rings every answering
 * thread writes into, enriches (IP databases), attributes, rolls up and writes
 * them, so none of that runs on the DNS threads or on the main thread (HTTP, DDNS). The
 * thread opens its own store: the SQLite file beside the main thread's reading connection
 * (WAL), or its own MongoDB client.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { SqliteQueryLogStore } from '../infrastructure/sqlite-query-log.store';
import { IpIntel } from './ip-intel';
import { QueryRingReader, WireStrings } from './query-ring';
import {
  THREAD_WRITER,
  type QueryLogCommand,
  type QueryLogReport,
  type QueryLogThreadData,
} from './query-log-thread.protocol';
import { QueryLogWriter } from './query-log-writer';
import { lowerThreadPriority } from './thread-priority';
import { nameThisThread } from '../../shared/thread-name';
import type { QueryLogStore } from './query-log.store';

/** How often the thread tells the main thread its counts for /metrics. */
const STATS_INTERVAL_MS = 250;
/**
 * How often the thread drains the answering threads' rings: often enough that a ring
 * (query-ring.ts, 4 MiB) never fills at full speed, rarely enough that draining costs
 * little per query and never wakes for a handful.
 */
const DRAIN_INTERVAL_MS = 50;

/** The MongoDB driver is loaded only when the log goes there: the thread starts sooner. */
const openStore = async (data: QueryLogThreadData): Promise<QueryLogStore> =>
  data.target.kind === 'mongo'
    ? (await import('../infrastructure/mongo-query-log.store')).MongoQueryLogStore.connect(data.target.url)
    : new SqliteQueryLogStore(data.target.file);

async function main(parent: NonNullable<typeof parentPort>, data: QueryLogThreadData): Promise<void> {
  const post = (m: QueryLogReport) => parent.postMessage(m);
  nameThisThread('query-log');
  // Below the answering threads when QUERY_LOG_NICE asks for it (thread-priority.ts).
  lowerThreadPriority(data.nice ?? 0);
  const store = await openStore(data);
  const intel = new IpIntel();
  // Loading the IP databases takes a second or two of CPU (more on a busy machine): on this
  // thread, from the start, so the first queries' rows are not held back behind it.
  void intel.ready();
  const writer = new QueryLogWriter(
    store,
    intel,
    null,
    (e) => post({ type: 'error', error: e instanceof Error ? e.message : String(e) }),
    {
      ...THREAD_WRITER,
      ...data.writer,
    },
  );
  const strings = new WireStrings();
  const rings = new Set<QueryRingReader>();
  /** Takes everything published on every ring; forgets the rings whose thread is gone. */
  const drain = () => {
    strings.renewIfFull();
    for (const reader of rings) {
      // A chunk waits as columns, and is written as columns (delivered-rows.ts).
      const chunk = reader.drain();
      if (chunk) writer.recordBatch(chunk);
      if (reader.finished) rings.delete(reader);
    }
  };
  const drainer = setInterval(drain, DRAIN_INTERVAL_MS);

  let last = '';
  const stats = setInterval(() => {
    const report = {
      type: 'stats',
      written: writer.written,
      dropped: writer.dropped,
      pending: writer.pending,
    } as const;
    const key = `${report.written}/${report.dropped}/${report.pending}`;
    if (key !== last) post(report);
    last = key;
  }, STATS_INTERVAL_MS);

  parent.on('message', (m: QueryLogCommand) => {
    switch (m.type) {
      case 'ring':
        return void rings.add(new QueryRingReader(m.ring, strings));
      case 'flush':
        drain();
        return void writer
          .flush()
          .then(() =>
            post({ type: 'stats', written: writer.written, dropped: writer.dropped, pending: writer.pending }),
          )
          .finally(() => post({ type: 'flushed', id: m.id }));
      case 'close':
        return void (async () => {
          clearInterval(drainer);
          drain();
          clearInterval(stats);
          await writer.close();
          post({ type: 'stats', written: writer.written, dropped: writer.dropped, pending: writer.pending });
          await store.close();
          post({ type: 'closed' });
        })();
    }
  });
  post({ type: 'ready' });
}

if (parentPort) {
  const parent = parentPort;
  main(parent, workerData as QueryLogThreadData).catch((e: Error) =>
    parent.postMessage({ type: 'failed', error: e.message } satisfies QueryLogReport),
  );
}
