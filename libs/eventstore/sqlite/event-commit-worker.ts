/**
 * The embedded event store's commit thread: runs the group commits (the transaction, the
 * WAL flush with `synchronous=FULL`, and the WAL checkpoints SQLite runs inside a commit)
 * off the service's event loop, which meanwhile keeps serving requests and gathering the
 * next batch. A commit becomes visible to other connections only after its flush, so no
 * reader sees an event that a power cut could still take away.
 */
import { workerData } from 'node:worker_threads';
import { nameThisThread } from '../../shared/thread-name';
import { serveWorkerCalls } from '../../shared/worker-rpc';
import { BatchCommitter, CommitResult, openEventDatabase } from './append-batch';
import type { CommitCall, CommitThreadData } from './commit-thread';

if (workerData) {
  // Named for per-thread CPU figures (/proc/<pid>/task/*/comm), as the other threads are.
  nameThisThread('eventstore');
  const { file, synchronous, pageCacheMiB } = workerData as CommitThreadData;
  const db = openEventDatabase(file, synchronous);
  db.pragma(`cache_size = ${-Math.round(pageCacheMiB * 1024)}`);
  const committer = new BatchCommitter(db);
  // Calls that arrived together (the store keeps one in flight, so usually one) commit as one transaction.
  serveWorkerCalls<CommitCall, CommitResult>(
    (calls) => {
      const { outcomes, written, created } = committer.commit(
        calls.flatMap((c) => c.requests),
        calls[calls.length - 1].now,
      );
      let at = 0;
      return calls.map((c) => {
        const from = at;
        at += c.requests.length;
        return { outcomes: outcomes.slice(from, at), written: written.slice(from, at), created };
      });
    },
    () => db.close(),
  );
}
