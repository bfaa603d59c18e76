/**
 * The append worker: owns the event store's write connection, so a commit's WAL flush
 * (an fsync with `synchronous = FULL`) blocks this thread, not the service's event loop.
 * Batches that arrive while a commit runs are merged into the next one (group commit).
 */
import { workerData } from 'node:worker_threads';
import { serveWorkerCalls } from '../../shared/worker-rpc';
import { AppendOutcome, AppendRequest, BatchCommitter, openEventDatabase, Synchronous } from './append-batch';

export interface AppendWorkerData {
  file: string;
  synchronous: Synchronous;
}

if (workerData) {
  const { file, synchronous } = workerData as AppendWorkerData;
  const db = openEventDatabase(file, synchronous);
  const committer = new BatchCommitter(db);
  serveWorkerCalls<AppendRequest[], AppendOutcome[]>(
    (batches) => {
      const outcomes = committer.commit(batches.flat());
      let offset = 0;
      return batches.map((b) => outcomes.slice(offset, (offset += b.length)));
    },
    () => db.close(),
  );
}
