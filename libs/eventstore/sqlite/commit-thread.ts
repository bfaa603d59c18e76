/**
 * Where the embedded event store commits: on the event loop (`InlineCommits`) or on its
 * own thread (`ThreadCommits`, event-commit-worker.ts). Both commit a batch of appends in
 * one transaction and answer each append's outcome; a failed transaction fails them all.
 */
import Database from 'better-sqlite3';
import { compiledWorkerScript } from '../../shared/worker-script';
import { WorkerClient } from '../../shared/worker-rpc';
import { AppendRequest, BatchCommitter, CommitResult, Synchronous } from './append-batch';

export interface CommitCall {
  requests: AppendRequest[];
  /** The store's clock when the batch left: `created` and the event ids' time. */
  now: number;
}

export interface CommitThreadData {
  file: string;
  synchronous: Synchronous;
  pageCacheMiB: number;
}

export interface Commits {
  /** Whether `commit` blocks the caller until done (the store then needs no in-flight bookkeeping). */
  readonly inline: boolean;
  commit(call: CommitCall): CommitResult | Promise<CommitResult>;
  close(): Promise<void>;
}

class InlineCommits implements Commits {
  readonly inline = true;
  private readonly committer: BatchCommitter;
  constructor(db: Database.Database) {
    this.committer = new BatchCommitter(db);
  }
  commit(call: CommitCall): CommitResult {
    return this.committer.commit(call.requests, call.now);
  }
  async close(): Promise<void> {}
}

/**
 * The commit thread's page cache: it only appends (the right edge of the position and id
 * indexes) and checks the last revision of the streams appended to.
 */
const COMMIT_THREAD_PAGE_CACHE_MIB = 2;

class ThreadCommits implements Commits {
  readonly inline = false;
  private readonly worker: WorkerClient<CommitCall, CommitResult>;
  constructor(script: string, data: CommitThreadData) {
    // The thread holds one batch at a time (tens of KB under DDNS load): a small heap keeps
    // its garbage from piling up. The thread costs ~8 MB of RSS in all (its isolate, heap and
    // page cache: 64 writers, 12,800 appends), 1.5 MB less than with a 4 MB young generation.
    this.worker = new WorkerClient(script, data, { maxOldGenerationSizeMb: 128, maxYoungGenerationSizeMb: 2 });
  }
  commit(call: CommitCall): Promise<CommitResult> {
    return this.worker.call(call);
  }
  close(): Promise<void> {
    return this.worker.close();
  }
}

/**
 * `auto`: a thread for a database file when the worker script is built (dist, or beside
 * this module), else inline; `:memory:` databases are private to their connection, so
 * always inline.
 */
export function createCommits(
  db: Database.Database,
  file: string,
  synchronous: Synchronous,
  mode: 'auto' | 'inline' | 'thread',
): Commits {
  const script =
    mode === 'inline' || file === ':memory:' ? null : compiledWorkerScript(__dirname, 'event-commit-worker');
  if (mode === 'thread' && !script)
    throw new Error('the event-store commit thread script is not built (run npm run build)');
  return script
    ? new ThreadCommits(script, { file, synchronous, pageCacheMiB: COMMIT_THREAD_PAGE_CACHE_MIB })
    : new InlineCommits(db);
}
