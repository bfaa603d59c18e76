/**
 * The embedded read store's persistence worker: writes document batches to SQLite so the
 * transaction and its WAL write do not run on the service's event loop.
 */
import { workerData } from 'node:worker_threads';
import { serveWorkerCalls } from '../../shared/worker-rpc';
import { documentWriter, openDocumentDatabase, PersistOp } from './document-persistence';

if (workerData) {
  const db = openDocumentDatabase((workerData as { file: string }).file);
  const write = documentWriter(db);
  serveWorkerCalls<PersistOp[], null>(
    (batches) => {
      write(batches);
      return batches.map(() => null);
    },
    () => db.close(),
  );
}
