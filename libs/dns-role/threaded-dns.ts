import { MessageChannel, Worker } from 'node:worker_threads';
import type { SqliteEventStore } from '../eventstore/sqlite/sqlite-event-store';
import { closeRing } from '../dns-analytics/application/query-ring';
import { compiledWorkerScript } from '../shared/worker-script';
import type { DnsMetricsSink } from './dns-metrics.sink';
import type { DnsLog, DnsRoleRunner, DnsRoleSettings, TransferActivity } from './dns-role';
import type { UpdateApplier } from '../dns-transfer/transfer-service';
import {
  COMMITS,
  SLEEPING,
  type DnsThreadCommand,
  type DnsThreadData,
  type DnsThreadMessage,
} from './dns-thread.protocol';

/** Wait between restarts of a DNS thread that died, so a crash loop does not spin. */
const RESTART_DELAY_MS = 1000;
/**
 * A DNS thread keeps little alive (~6 MB at 1,500 hosts in the soak benchmark) but
 * allocates fast (event pages, packets), so V8 grew its young generation to the default
 * maximum: 42–50 MB committed per thread, two threads by default. 16 MB, as for the
 * read-model writer, keeps that bounded; scavenges stay cheap as few objects survive.
 */
const DNS_THREAD_YOUNG_GENERATION_MB = 16;

export const dnsThreadScript = (): string | null => compiledWorkerScript(__dirname, 'dns-thread');

/**
 * Runs the `dns` role in a worker thread (see dns-thread.ts): tells it about every commit
 * of this process's event store, and hands the answered queries it reports to the sink.
 * A thread that dies is logged and started again.
 */
export class ThreadedDns implements DnsRoleRunner {
  private worker: Worker | null = null;
  private stopping = false;
  private unsubscribe: (() => void) | null = null;
  private boundPort = 0;
  private readonly commits = new Int32Array(new SharedArrayBuffer(8));
  /** Called with each new thread (the first, and every restart): shareFold links leader and followers. */
  spawned: () => void = () => undefined;

  constructor(
    private readonly script: string,
    private readonly store: SqliteEventStore,
    private readonly settings: DnsRoleSettings,
    private readonly sink: DnsMetricsSink,
    private readonly log: DnsLog,
    private readonly options: {
      pollIntervalMs?: number;
      activity?: (a: TransferActivity) => void;
      applyUpdate?: UpdateApplier;
      /** Called when the thread is started again after it died (cpu-locality.ts: the steering order moved). */
      restarted?: () => void;
    } = {},
  ) {}

  async start(): Promise<number> {
    // A follower reads no events: its leader tells it what changed.
    if (this.settings.fold !== 'follower')
      this.unsubscribe = this.store.onAppended(() => {
        Atomics.add(this.commits, COMMITS, 1);
        // Only a sleeping thread needs the (costly) wake-up; a busy one looks by itself.
        if (Atomics.load(this.commits, SLEEPING) === 1) Atomics.notify(this.commits, COMMITS);
      });
    this.boundPort = await this.spawn(this.settings.dnsPort);
    return this.boundPort;
  }

  private spawn(port: number, restart = false): Promise<number> {
    // A channel of its own to the query-log thread when there is one (a new one per restart).
    const queryLog = this.sink.openQueryChannel() ?? undefined;
    const data: DnsThreadData = {
      ...this.settings,
      // A restarted thread's socket joins the SO_REUSEPORT group last, not at its old index:
      // its CPU is no longer the one steered to it, so it runs unpinned (cpu-locality.ts).
      cpu: restart ? undefined : this.settings.cpu,
      dnsPort: port,
      eventsFile: this.store.file,
      commits: this.commits,
      forwardQueries: !queryLog && this.sink.forwardsQueries,
      queryLog,
      pollIntervalMs: this.options.pollIntervalMs,
    };
    const worker = new Worker(this.script, {
      workerData: data,
      resourceLimits: { maxYoungGenerationSizeMb: DNS_THREAD_YOUNG_GENERATION_MB },
    });
    this.worker = worker;
    this.spawned();
    return new Promise((resolve, reject) => {
      worker.on('message', (m: DnsThreadMessage) => {
        switch (m.type) {
          case 'ready':
            return resolve(m.port);
          case 'failed':
            reject(new Error(m.error));
            return void worker.terminate();
          case 'tally':
            return this.sink.recordTally(m.report);
          case 'queries':
            for (const q of m.batch) this.sink.forward(q);
            return;
          case 'log':
            return this.log(m.msg, m.extra);
          case 'transfer':
            return this.options.activity?.(m.activity);
          case 'update': {
            const apply = this.options.applyUpdate ?? (() => Promise.resolve(5 /* REFUSED */));
            const answer = (rcode: number) =>
              worker.postMessage({ type: 'update-result', id: m.id, rcode } satisfies DnsThreadCommand);
            apply(m.request).then(answer, () => answer(2 /* SERVFAIL */));
            return;
          }
        }
      });
      worker.on('error', (err) => {
        this.log('dns thread failed', { error: err.message });
        reject(err);
      });
      worker.on('exit', () => {
        // The log thread drains what the thread published, then lets its ring go.
        if (queryLog) closeRing(queryLog.ring);
        if (this.worker !== worker || this.stopping) return;
        this.worker = null;
        this.log('dns thread exited; restarting');
        // The same port again: clients and NS records know it.
        setTimeout(() => {
          this.options.restarted?.();
          void this.spawn(this.boundPort, true).catch((e: Error) =>
            this.log('dns thread restart failed', { error: e.message }),
          );
        }, RESTART_DELAY_MS).unref();
      });
    });
  }

  /** Whether a thread runs (none while it is being restarted). */
  get running(): boolean {
    return this.worker !== null;
  }

  /** Lets the running thread run on these CPUs from now (cpu-locality.ts). */
  runOn(cpus: number[]): void {
    this.worker?.postMessage({ type: 'cpus', cpus } satisfies DnsThreadCommand);
  }

  /** Gives the running thread a channel end. */
  sendPort(command: Extract<DnsThreadCommand, { port: unknown }>): void {
    this.worker?.postMessage(command, [command.port]);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.unsubscribe?.();
    const worker = this.worker;
    this.worker = null;
    if (!worker) return;
    await new Promise<void>((resolve) => {
      worker.on('message', (m: DnsThreadMessage) => m.type === 'stopped' && resolve());
      worker.once('exit', () => resolve());
      worker.postMessage('stop' satisfies DnsThreadCommand);
    });
    await worker.terminate();
  }
}

/**
 * The DNS threads of one process share the leader's fold (DnsRoleSettings.fold): each
 * follower gets a channel to the leader whenever either starts, so a follower started later
 * (or restarted) gets a snapshot, and after a restart of the leader every follower gets one
 * from the new leader (until then it answers from what it has).
 */
export function shareFold(leader: ThreadedDns, followers: ThreadedDns[]): void {
  const connect = (follower: ThreadedDns) => {
    if (!leader.running || !follower.running) return;
    const { port1, port2 } = new MessageChannel();
    // Slot SENT (dns-role.ts).
    const shipped = new Int32Array(new SharedArrayBuffer(4));
    leader.sendPort({ type: 'follower', port: port1, shipped });
    follower.sendPort({ type: 'leader', port: port2, shipped });
  };
  leader.spawned = () => followers.forEach(connect);
  for (const follower of followers) follower.spawned = () => connect(follower);
}
