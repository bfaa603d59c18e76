/**
 * Worker-thread entry of the query-log pipeline: decodes the batches every answering
 * thread sends on its channel, enriches (IP databases), attributes, rolls up and writes
 * them, so none of that runs on the DNS threads or on the main thread (HTTP, DDNS). The
 * thread opens its own store: the SQLite file beside the main thread's reading connection
 * (WAL), or its own MongoDB client.
 */
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { SqliteQueryLogStore } from '../infrastructure/sqlite-query-log.store';
import { IpIntel } from './ip-intel';
import { QueryBatchDecoder } from './query-batch';
import { BACKLOG, type ChannelMessage } from './query-log-channel';
import { THREAD_WRITER, type QueryLogCommand, type QueryLogReport, type QueryLogThreadData } from './query-log-thread.protocol';
import { QueryLogWriter } from './query-log-writer';
import { lowerThreadPriority } from './thread-priority';
import type { QueryLogStore } from './query-log.store';

/** How often the thread tells the main thread its counts for /metrics. */
const STATS_INTERVAL_MS = 250;
/** How long flush and close wait for batches already posted to arrive. */
const DRAIN_WAIT_MS = 2000;

/** The MongoDB driver is loaded only when the log goes there: the thread starts sooner. */
const openStore = async (data: QueryLogThreadData): Promise<QueryLogStore> =>
  data.target.kind === 'mongo' ? (await import('../infrastructure/mongo-query-log.store')).MongoQueryLogStore.connect(data.target.url) : new SqliteQueryLogStore(data.target.file);

/** Waits until every batch posted so far (on any channel) has been taken. */
async function drained(control: Int32Array): Promise<void> {
  const until = Date.now() + DRAIN_WAIT_MS;
  while (Atomics.load(control, BACKLOG) > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 1));
}

async function main(parent: NonNullable<typeof parentPort>, data: QueryLogThreadData): Promise<void> {
  const post = (m: QueryLogReport) => parent.postMessage(m);
  // Below the answering threads when QUERY_LOG_NICE asks for it (thread-priority.ts).
  lowerThreadPriority(data.nice ?? 0);
  const store = await openStore(data);
  const intel = new IpIntel();
  // Loading the IP databases takes a second or two of CPU (more on a busy machine): on this
  // thread, from the start, so the first queries' rows are not held back behind it.
  void intel.ready();
  const writer = new QueryLogWriter(store, intel, null, (e) => post({ type: 'error', error: e instanceof Error ? e.message : String(e) }), {
    ...THREAD_WRITER,
    ...data.writer,
  });
  const channels = new Set<MessagePort>();

  const accept = (port: MessagePort) => {
    const decoder = new QueryBatchDecoder();
    channels.add(port);
    port.on('message', (m: ChannelMessage) => {
      // Decoded when written: until then the batch waits as its buffer, not as objects.
      writer.recordBatch(decoder.defer(m.batch));
      Atomics.sub(data.control, BACKLOG, m.batch.count);
    });
    port.on('close', () => channels.delete(port));
  };

  let last = '';
  const stats = setInterval(() => {
    const report = { type: 'stats', written: writer.written, dropped: writer.dropped, pending: writer.pending } as const;
    const key = `${report.written}/${report.dropped}/${report.pending}`;
    if (key !== last) post(report);
    last = key;
  }, STATS_INTERVAL_MS);

  parent.on('message', (m: QueryLogCommand) => {
    switch (m.type) {
      case 'channel':
        return accept(m.port);
      case 'flush':
        return void drained(data.control)
          .then(() => writer.flush())
          .then(() => post({ type: 'stats', written: writer.written, dropped: writer.dropped, pending: writer.pending }))
          .finally(() => post({ type: 'flushed', id: m.id }));
      case 'close':
        return void (async () => {
          await drained(data.control);
          clearInterval(stats);
          for (const port of channels) port.close();
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
  main(parent, workerData as QueryLogThreadData).catch((e: Error) => parent.postMessage({ type: 'failed', error: e.message } satisfies QueryLogReport));
}
