/**
 * Where the SQLite event store's commits run: on the calling thread (in-memory stores,
 * tools) or in the append worker (a file store in the service), behind one interface.
 */
import type Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import { AppendOutcome, AppendRequest, BatchCommitter, Synchronous } from './append-batch';
import type { AppendWorkerData, WorkerBatch, WorkerReply } from './append-worker';

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

/**
 * The compiled worker script. Under ts-jest this module runs from its `.ts` source, and
 * a worker thread cannot load TypeScript, so the build's copy under `dist/` is used
 * (`npm test` builds first); null when neither exists.
 */
export function appendWorkerScript(): string | null {
  const beside = join(__dirname, 'append-worker.js');
  if (existsSync(beside)) return beside;
  const root = resolve(__dirname, '..', '..', '..');
  const built = join(root, 'dist', relative(root, __dirname), 'append-worker.js');
  return existsSync(built) ? built : null;
}

interface Pending {
  resolve: (outcomes: AppendOutcome[]) => void;
  reject: (e: Error) => void;
}

export class ThreadAppendWriter implements AppendWriter {
  readonly kind = 'thread' as const;
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextBatchId = 1;
  private closing: Promise<void> | null = null;

  constructor(
    private readonly script: string,
    private readonly data: AppendWorkerData,
  ) {}

  commit(requests: AppendRequest[]): Promise<AppendOutcome[]> {
    if (this.closing) return Promise.reject(new Error('event store is closed'));
    const batchId = this.nextBatchId++;
    const worker = this.ensureWorker();
    // Referenced only while a commit is awaited: an idle worker does not keep the process alive.
    worker.ref();
    return new Promise((resolve, reject) => {
      this.pending.set(batchId, { resolve, reject });
      worker.postMessage({ batchId, requests } satisfies WorkerBatch);
    });
  }

  /** Started on first use, and again after a crash: appends after it are not lost to a dead worker. */
  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(this.script, { workerData: this.data });
    worker.on('message', (reply: WorkerReply | 'ready' | 'closed') => {
      if (typeof reply === 'string') return;
      const waiting = this.pending.get(reply.batchId);
      if (!waiting) return;
      this.pending.delete(reply.batchId);
      if (this.pending.size === 0) worker.unref();
      if ('error' in reply) waiting.reject(new Error(reply.error));
      else waiting.resolve(reply.outcomes);
    });
    const failAll = (err: Error) => {
      if (this.worker === worker) this.worker = null;
      // Whether these batches were committed is unknown: their callers get the error.
      for (const [, waiting] of this.pending) waiting.reject(err);
      this.pending.clear();
    };
    worker.on('error', failAll);
    worker.on('exit', (code) => failAll(new Error(`append worker exited with code ${code}`)));
    this.worker = worker;
    return worker;
  }

  close(): Promise<void> {
    this.closing ??= new Promise<void>((resolve) => {
      const worker = this.worker;
      if (!worker) return resolve();
      // The worker commits what it holds, closes its connection, then is stopped.
      worker.on('message', (m) => {
        if (m === 'closed') void worker.terminate().then(() => resolve());
      });
      worker.once('exit', () => resolve());
      worker.postMessage('close');
    });
    return this.closing;
  }
}

export function createAppendWriter(db: Database.Database, file: string, synchronous: Synchronous, mode: 'auto' | 'inline' | 'thread'): AppendWriter {
  const script = mode === 'inline' || file === ':memory:' ? null : appendWorkerScript();
  if (mode === 'thread' && !script) throw new Error('the append worker script is not built (run npm run build)');
  return script ? new ThreadAppendWriter(script, { file, synchronous }) : new InlineAppendWriter(db);
}
