/**
 * Calls into a worker thread that does blocking work (SQLite commits) off the event loop.
 * The worker takes every call that arrived in one of its event-loop turns as one batch,
 * so calls made while it was busy are handled together (one transaction for many).
 */
import { parentPort, ResourceLimits, Worker } from 'node:worker_threads';

type Reply<Res> = { id: number; result: Res } | { id: number; error: string };
type Call<Req> = { id: number; request: Req };
const CLOSE = 'close';
const CLOSED = 'closed';

interface Waiting<Res> {
  resolve: (r: Res) => void;
  reject: (e: Error) => void;
}

export class WorkerClient<Req, Res> {
  private worker: Worker | null = null;
  private readonly waiting = new Map<number, Waiting<Res>>();
  private nextId = 1;
  private closing: Promise<void> | null = null;

  constructor(
    private readonly script: string,
    private readonly workerData: unknown,
    /** Heap limits of the thread: V8 otherwise lets a busy worker's garbage grow for long before collecting it. */
    private readonly resourceLimits?: ResourceLimits,
  ) {}

  /** `transfer`: buffers of the request moved to the thread rather than copied (unusable here afterwards). */
  call(request: Req, transfer?: readonly ArrayBuffer[]): Promise<Res> {
    if (this.closing) return Promise.reject(new Error('worker is closed'));
    const id = this.nextId++;
    const worker = this.ensureWorker();
    // Referenced only while a call is awaited: an idle worker does not keep the process alive.
    worker.ref();
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      worker.postMessage({ id, request } satisfies Call<Req>, transfer);
    });
  }

  /** Started on first use, and again after a crash, so later calls do not go to a dead thread. */
  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(this.script, { workerData: this.workerData, resourceLimits: this.resourceLimits });
    worker.on('message', (reply: Reply<Res> | typeof CLOSED) => {
      if (reply === CLOSED) return;
      const waiting = this.waiting.get(reply.id);
      if (!waiting) return;
      this.waiting.delete(reply.id);
      if (this.waiting.size === 0) worker.unref();
      if ('error' in reply) waiting.reject(new Error(reply.error));
      else waiting.resolve(reply.result);
    });
    const failAll = (err: Error) => {
      if (this.worker === worker) this.worker = null;
      // Whether these calls took effect is unknown: their callers get the error.
      for (const [, waiting] of this.waiting) waiting.reject(err);
      this.waiting.clear();
    };
    worker.on('error', failAll);
    worker.on('exit', (code) => failAll(new Error(`worker ${this.script} exited with code ${code}`)));
    this.worker = worker;
    return worker;
  }

  /** Lets the worker finish the calls it holds, then stops it. */
  close(): Promise<void> {
    this.closing ??= new Promise<void>((resolve) => {
      const worker = this.worker;
      if (!worker) return resolve();
      worker.ref();
      worker.on('message', (m) => {
        if (m === CLOSED) void worker.terminate().then(() => resolve());
      });
      worker.once('exit', () => resolve());
      worker.postMessage(CLOSE);
    });
    return this.closing;
  }
}

/**
 * The worker side: `handle` gets the calls of one turn together and returns their results
 * in the same order; if it throws, every call of the batch gets the error. `onClose` runs
 * once the calls already received are handled.
 */
export function serveWorkerCalls<Req, Res>(
  handle: (requests: Req[]) => Res[],
  onClose: () => void,
  /** Buffers of a result moved back to the caller rather than copied (a buffer it lent, to use again). */
  transferOf?: (result: Res) => readonly ArrayBuffer[],
): void {
  const port = parentPort;
  if (!port) throw new Error('serveWorkerCalls must run in a worker thread');
  let queue: Call<Req>[] = [];
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    const calls = queue;
    queue = [];
    if (calls.length === 0) return;
    try {
      const results = handle(calls.map((c) => c.request));
      calls.forEach((c, i) =>
        port.postMessage({ id: c.id, result: results[i] } satisfies Reply<Res>, transferOf?.(results[i])),
      );
    } catch (e) {
      for (const c of calls) port.postMessage({ id: c.id, error: (e as Error).message } satisfies Reply<Res>);
    }
  };
  port.on('message', (message: Call<Req> | typeof CLOSE) => {
    if (message === CLOSE) {
      flush();
      onClose();
      port.postMessage(CLOSED);
      return;
    }
    queue.push(message);
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  });
}
