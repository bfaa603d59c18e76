/**
 * The embedded read store's writer thread: applies document batches to SQLite so the
 * transaction and index upkeep do not run on the service's event loop.
 */
import { workerData } from 'node:worker_threads';
import { nameThisThread } from '../../shared/thread-name';
import { serveWorkerCalls } from '../../shared/worker-rpc';
import { openReadModelDatabase } from './read-model-database';
import { batchWriter, EncodedBatch, Scratch } from './read-model-writer';

if (workerData) {
  // Named for per-thread CPU figures (/proc/<pid>/task/*/comm), as the DNS and query-log threads are.
  nameThisThread('readstore');
  const { file, pageCacheMiB, writer } = workerData as { file: string; pageCacheMiB: number; writer: string };
  const db = openReadModelDatabase(file, pageCacheMiB);
  const write = batchWriter(db, writer);
  serveWorkerCalls<EncodedBatch, Scratch>(
    write,
    () => db.close(),
    // The batch's buffers go back, to encode the next batch in.
    (lent) => [lent.bytes, lent.index],
  );
}
