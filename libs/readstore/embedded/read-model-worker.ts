/**
 * The embedded read store's writer thread: applies document batches to SQLite so JSON
 * encoding, the transaction and index upkeep do not run on the service's event loop.
 */
import { workerData } from 'node:worker_threads';
import { serveWorkerCalls } from '../../shared/worker-rpc';
import { openReadModelDatabase } from './read-model-database';
import { batchWriter, WriteOp } from './read-model-writer';

if (workerData) {
  const { file, pageCacheMiB, writer } = workerData as { file: string; pageCacheMiB: number; writer: string };
  const db = openReadModelDatabase(file, pageCacheMiB);
  const write = batchWriter(db, writer);
  serveWorkerCalls<WriteOp[], number[]>(write, () => db.close());
}
