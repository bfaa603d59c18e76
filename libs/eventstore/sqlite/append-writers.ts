/**
 * Where the SQLite event store's commits run: on the calling thread (in-memory stores,
 * tools) or in the append worker (a file store in the service), behind one interface.
 */
import type Database from 'better-sqlite3';
import { WorkerClient } from '../../shared/worker-rpc';
import { compiledWorkerScript } from '../../shared/worker-script';
import { AppendOutcome, AppendRequest, BatchCommitter, Synchronous } from './append-batch';
import type { AppendWorkerData } from './append-worker';

export interface AppendWriter {
  readonly kind: 'inline' | 'thread';
  /** Commits the batch in one transaction; rejects when the transaction itself failed. */
  commit(requests: AppendRequest[]): Promise<AppendOutcome[]>;
  close(): Promise<void>;
}

export class InlineAppendWriter implements AppendWriter {
  readonly kind = 'inline' as const;
  private readonly committer: BatchCommitter;

  constructor(db: Database.Database) {
    this.committer = new BatchCommitter(db);
  }

  async commit(requests: AppendRequest[]): Promise<AppendOutcome[]> {
    return this.committer.commit(requests);
  }

  async close(): Promise<void> {}
}

export class ThreadAppendWriter implements AppendWriter {
  readonly kind = 'thread' as const;
  private readonly worker: WorkerClient<AppendRequest[], AppendOutcome[]>;

  constructor(script: string, data: AppendWorkerData) {
    this.worker = new WorkerClient(script, data);
  }

  commit(requests: AppendRequest[]): Promise<AppendOutcome[]> {
    return this.worker.call(requests);
  }

  close(): Promise<void> {
    return this.worker.close();
  }
}

export function createAppendWriter(db: Database.Database, file: string, synchronous: Synchronous, mode: 'auto' | 'inline' | 'thread'): AppendWriter {
  const script = mode === 'inline' || file === ':memory:' ? null : compiledWorkerScript(__dirname, 'append-worker');
  if (mode === 'thread' && !script) throw new Error('the append worker script is not built (run npm run build)');
  return script ? new ThreadAppendWriter(script, { file, synchronous }) : new InlineAppendWriter(db);
}
