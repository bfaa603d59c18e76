/**
 * The append worker: owns the event store's write connection, so a commit's WAL flush
 * (an fsync with `synchronous = FULL`) blocks this thread, not the service's event loop.
 * Batches that arrive while a commit runs are merged into the next one (group commit).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { AppendOutcome, AppendRequest, BatchCommitter, openEventDatabase, Synchronous } from './append-batch';

export interface WorkerBatch {
  batchId: number;
  requests: AppendRequest[];
}

export type WorkerReply = { batchId: number; outcomes: AppendOutcome[] } | { batchId: number; error: string };

export interface AppendWorkerData {
  file: string;
  synchronous: Synchronous;
}

if (parentPort) {
  const port = parentPort;
  const { file, synchronous } = workerData as AppendWorkerData;
  const db = openEventDatabase(file, synchronous);
  const committer = new BatchCommitter(db);
  let queue: WorkerBatch[] = [];
  let scheduled = false;

  const flush = () => {
    scheduled = false;
    const batches = queue;
    queue = [];
    try {
      const outcomes = committer.commit(batches.flatMap((b) => b.requests));
      let offset = 0;
      for (const b of batches) {
        port.postMessage({ batchId: b.batchId, outcomes: outcomes.slice(offset, offset + b.requests.length) } satisfies WorkerReply);
        offset += b.requests.length;
      }
    } catch (e) {
      for (const b of batches) port.postMessage({ batchId: b.batchId, error: (e as Error).message } satisfies WorkerReply);
    }
  };

  port.on('message', (batch: WorkerBatch | 'close') => {
    if (batch === 'close') {
      if (queue.length) flush();
      db.close();
      port.postMessage('closed');
      return;
    }
    queue.push(batch);
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  });
  port.postMessage('ready');
}
