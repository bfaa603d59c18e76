import { receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import { DnsServer, ZoneIndex, type AnswerTally, type QuerySink } from '../dns-server';
import { applyIndexBatch, IndexChangeLog, indexSnapshot } from '../dns-server/index-replica';
import { DEFAULT_JOURNAL_BOUNDS, Journal } from '../dns-transfer/journal';
import { Notifier, type NotifyReport } from '../dns-transfer/notifier';
import { ACL_EVENT_TYPES, parseEndpoint, TransferAcl } from '../dns-transfer/transfer-acl';
import { TransferService, type TransferReport, type UpdateApplier } from '../dns-transfer/transfer-service';
import { parseKeySpec } from '../dns-transfer/tsig';
import { EventStore, RecordedEvent } from '../eventstore/event-store.port';
import { SecretBox } from '../shared/crypto';
import { DnsIndexFeeder } from './dns-index-feeder';

/** Zone transfers' settings (contract §18); plain data, as they cross to a DNS thread. */
export interface TransferSettings {
  /** SECONDARIES: `IP[:port]` of the operator's secondaries. */
  secondaries: string[];
  /** SECONDARY_TSIG_KEY: `name:algorithm:base64secret`. */
  secondaryTsigKey: string | null;
  /** The service secret that seals TSIG secrets (SECRET_KEY, or the generated one). */
  secretKey: string;
}

export interface DnsRoleSettings {
  dnsHost: string;
  dnsPort: number;
  ddnsZones: string[];
  nameservers: string[];
  /** Opens the zones' sealed DNSSEC private keys (SECRET_KEY, or the one generated into DATA_DIR). */
  secretKey?: string;
  /** See DnsServerOptions: how a replica shares its port with sibling DNS threads. */
  reusePort?: boolean;
  /** CPU-local steering (cpu-locality.ts): attach the program for this many DNS threads (the first thread). */
  steerByCpu?: number;
  /** The CPU this DNS thread pins itself to (cpu-locality.ts). */
  cpu?: number;
  udpOnly?: boolean;
  transfers?: TransferSettings;
  /**
   * The DNS threads of one process share one fold of the events (index-replica.ts): the
   * `leader` folds them and ships its index's changes to each `follower`, which reads no
   * events. Unset: this role folds the events for itself alone.
   */
  fold?: 'leader' | 'follower';
}

/**
 * One end of the channel between a leader and a follower (threaded-dns.ts `shareFold`), and
 * the count of batches the leader has sent on it (slot SENT), shared by both: the follower
 * looks at it before reading queries, and takes what was sent without waiting for its
 * message (catchUp).
 */
export interface FoldChannel {
  port: MessagePort;
  shipped: Int32Array;
}

/** FoldChannel.shipped: how many batches the leader has sent on the channel. */
export const SENT = 0;

/** An event the transfer ACL folds, as a leader ships it to its followers (only what TransferAcl.apply reads). */
interface AclEvent {
  type: string;
  data: unknown;
}

export type DnsLog = (msg: string, extra?: Record<string, unknown>) => void;

/** What the DNS role reports about transfers and NOTIFYs (metrics, a secondary's status). */
export type TransferActivity =
  { kind: 'transfer-report'; report: TransferReport } | { kind: 'notify-report'; report: NotifyReport };

/** What the service holds of the `dns` role, wherever it runs (this thread or its own). */
export interface DnsRoleRunner {
  /** Resolves with the bound port once the index has caught up and the sockets listen. */
  start(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * The `dns` role itself: an in-memory zone index fed by its own event subscription,
 * served over UDP and TCP. The server starts only once the index has caught up with the
 * event store, so a restarted replica never answers NXDOMAIN for existing hosts.
 *
 * With transfers configured it also keeps the IXFR journal (from the index's changes), the
 * transfer ACL (from the same subscription) and, on the replica that serves TCP, sends the
 * NOTIFYs.
 */
export class DnsRole implements DnsRoleRunner {
  private readonly index = new ZoneIndex();
  private feeder: DnsIndexFeeder | null = null;
  private server: DnsServer | null = null;
  private notifier: Notifier | null = null;
  /**
   * Leader: what changed in the index since it was last shipped, and the followers it goes to,
   * each with the count of batches sent on its channel (FoldChannel.shipped).
   */
  private changes: IndexChangeLog | null = null;
  private readonly followers = new Map<MessagePort, Int32Array>();
  private readonly waitingFollowers: FoldChannel[] = [];
  private live = false;
  /** Leader: every ACL event so far (a snapshot carries them all: few, and trimmed) and those not yet shipped. */
  private readonly aclEvents: AclEvent[] = [];
  private aclPending: AclEvent[] = [];
  /**
   * Follower: its leader's channel and how many of the batches sent on it were counted when
   * last taken (catchUp), and the transfer ACL the leader's events are folded into.
   */
  private leader: FoldChannel | null = null;
  private taken = 0;
  private acl: TransferAcl | null = null;
  private readonly synced: { promise: Promise<void>; resolve: () => void };

  constructor(
    /** Null for a follower (settings.fold): it reads no events. */
    private readonly store: EventStore | null,
    private readonly settings: DnsRoleSettings,
    private readonly sink: QuerySink | undefined,
    private readonly log: DnsLog,
    /** Counts for the metrics without an object per query (a DNS thread's tally); else the sink counts. */
    private readonly tally?: AnswerTally,
    private readonly hooks: { activity?: (a: TransferActivity) => void; applyUpdate?: UpdateApplier } = {},
  ) {
    let resolve!: () => void;
    const promise = new Promise<void>((r) => (resolve = r));
    this.synced = { promise, resolve };
    if (settings.fold === 'leader')
      this.changes = new IndexChangeLog(this.index, () => setImmediate(() => this.ship()));
  }

  /** Leader: ships the index's changes to the channel's follower from now on, after a snapshot (once the index has caught up). */
  addFollower(channel: FoldChannel): void {
    const { port, shipped } = channel;
    port.on('close', () => this.followers.delete(port));
    if (!this.live) return void this.waitingFollowers.push(channel);
    port.postMessage(indexSnapshot(this.index, this.aclEvents));
    Atomics.add(shipped, SENT, 1);
    this.followers.set(port, shipped);
  }

  /** Follower: installs what the channel's leader ships (a new leader starts with a snapshot, which replaces everything). */
  follow(channel: FoldChannel): void {
    this.leader?.port.close();
    this.leader = channel;
    this.taken = 0;
    channel.port.on('message', this.install);
  }

  private readonly install = (batch: ArrayBuffer): void => {
    const acl = applyIndexBatch(this.index, batch) as AclEvent[] | undefined;
    // Applied again from the first in a snapshot: the ACL's state is keyed by ids, so it ends the same.
    if (acl && this.acl) for (const e of acl) this.acl.apply(e as RecordedEvent);
    this.synced.resolve();
  };

  /**
   * Follower, before each batch of UDP queries is read: installs at once the batches the
   * leader has sent, rather than when this thread's loop comes to their message. A thread
   * that was descheduled, or busy, while a batch came wakes with queries and the batch's
   * message both waiting; the queries often went first, and were answered from the
   * state before it (decision 0120). Nothing to take costs one atomic read.
   */
  private readonly catchUp = (): void => {
    const leader = this.leader;
    if (!leader) return;
    const shipped = Atomics.load(leader.shipped, SENT);
    if (shipped === this.taken) return;
    // Counted after it was posted, so every batch counted is there to take (and maybe more).
    this.taken = shipped;
    for (let m = receiveMessageOnPort(leader.port); m; m = receiveMessageOnPort(leader.port))
      this.install(m.message as ArrayBuffer);
  };

  /** Leader: one batch per turn of the loop with changes, the same bytes to every follower. */
  private ship(): void {
    const changes = this.changes!;
    if (this.followers.size === 0) {
      this.aclPending = [];
      return changes.discard();
    }
    const acl = this.aclPending.length > 0 ? this.aclPending : undefined;
    this.aclPending = [];
    const batch = changes.drain(acl);
    if (!batch) return;
    let left = this.followers.size;
    for (const [port, shipped] of this.followers) {
      // The last one gets the buffer itself, the others a copy.
      if (--left === 0) port.postMessage(batch, [batch]);
      else port.postMessage(batch.slice(0));
      Atomics.add(shipped, SENT, 1);
    }
  }

  /** Leader: an ACL event, kept for the followers (a zone import's records are not the ACL's business). */
  private keepAclEvent(event: RecordedEvent): void {
    const data =
      event.type === 'ZoneImported' || event.type === 'ZoneDeleted'
        ? { zone_id: (event.data as { zone_id: string }).zone_id, name: (event.data as { name: string }).name }
        : event.data;
    const kept = { type: event.type, data };
    this.aclEvents.push(kept);
    this.aclPending.push(kept);
    this.changes!.touch(); // a batch goes out even with no index change
  }

  async start(): Promise<number> {
    const { dnsHost, dnsPort, reusePort, steerByCpu, udpOnly, transfers } = this.settings;
    let special: TransferService | undefined;
    let acl: TransferAcl | undefined;
    let live = false;
    const follower = this.settings.fold === 'follower';
    if (transfers) {
      const box = new SecretBox(transfers.secretKey);
      acl = new TransferAcl({
        operatorSecondaries: transfers.secondaries.map(parseEndpoint),
        operatorKey: transfers.secondaryTsigKey ? parseKeySpec(transfers.secondaryTsigKey) : null,
        open: (sealed, purpose) => box.open(sealed, purpose),
        log: this.log,
      });
      const aclNow = acl;
      this.acl = acl;
      // Only zones someone may transfer keep a history (journal.ts); the others answer IXFR with the whole zone.
      // A follower answers UDP only, where transfers are not served (an IXFR gets the SOA): it keeps none.
      const journal = new Journal(DEFAULT_JOURNAL_BOUNDS, (zone) => aclNow.transferable(zone));
      if (!follower) this.index.observe(journal.apply);
      const activity = this.hooks.activity;
      special = new TransferService(this.index, journal, acl, {
        report: activity && ((report) => activity({ kind: 'transfer-report', report })),
        applyUpdate: this.hooks.applyUpdate,
      });
      if (!udpOnly) {
        const notifier = new Notifier(this.index, acl, {
          report: activity && ((report) => activity({ kind: 'notify-report', report })),
        });
        await notifier.start();
        this.notifier = notifier;
        // History replayed at start notifies nobody: secondaries check their serial when they start.
        journal.onDelta((zone) => live && notifier.changed(zone));
      }
    }
    if (follower) await this.synced.promise;
    else await this.fold(acl);
    live = true;
    this.server = new DnsServer({
      host: dnsHost,
      port: dnsPort,
      index: this.index,
      reusePort,
      steerByCpu,
      udpOnly,
      sink: this.sink,
      tally: this.tally,
      special,
      catchUp: follower ? this.catchUp : undefined,
      onError: (err) => this.log('dns server error', { error: err.message }),
    });
    return (await this.server.start()).port;
  }

  /** Folds the events into the index; a leader then starts shipping to the followers that came meanwhile. */
  private async fold(acl: TransferAcl | undefined): Promise<void> {
    if (!this.store) throw new Error('a DNS role that folds the events needs an event store');
    const { ddnsZones, nameservers, secretKey } = this.settings;
    const leader = this.changes !== null;
    this.feeder = new DnsIndexFeeder(this.store, this.index, {
      ddnsZones,
      nameservers,
      secretKey,
      log: this.log,
      also: acl && {
        handles: ACL_EVENT_TYPES,
        apply: (e) => {
          acl.apply(e);
          if (leader) this.keepAclEvent(e);
        },
      },
      // Shipped at once rather than at the next turn: a follower serves the batch as soon as it can.
      batchApplied: leader ? () => this.ship() : undefined,
    });
    await this.feeder.start();
    this.live = true;
    for (const channel of this.waitingFollowers.splice(0)) this.addFollower(channel);
  }

  async stop(): Promise<void> {
    this.notifier?.stop();
    await this.server?.stop();
    await this.feeder?.stop();
    this.leader?.port.close();
    for (const port of this.followers.keys()) port.close();
  }
}
