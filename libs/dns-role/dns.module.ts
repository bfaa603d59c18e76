import { isIP } from 'node:net';
import { Inject, Injectable, Module, OnApplicationShutdown, OnModuleInit, Optional } from '@nestjs/common';
import { DNS_QUERY_SINK, type QuerySink } from '../dns-server';
import { EVENT_STORE, EventStore } from '../eventstore/event-store.port';
import { APP_CONFIG, AppConfig } from '../shared/config';
import { resolveSecretKey } from '../shared/crypto';
import { LOGGER, Logger } from '../shared/logger';
import { Metrics, METRICS } from '../shared/metrics';
import { DnsMetricsSink } from './dns-metrics.sink';
import { DnsLog, DnsRole, DnsRoleRunner } from './dns-role';
import { dnsThreadScript, shareFold, ThreadedDns } from './threaded-dns';
import { SqliteEventStore } from '../eventstore/sqlite/sqlite-event-store';
import { loadUdpBatch } from '../dns-server/udp-batch';
import { planCpuLocality, type CpuLocalityPlan } from '../dns-server/cpu-locality';
import { supportsReusePort } from '../dns-server/dns-server';
import { TransferStatus } from '../transfers/application/transfer-status';
import { TransfersModule } from '../transfers/transfers.module';
import { TransferActivity } from './dns-role';
import { CommandBus } from '@nestjs/cqrs';
import { UPDATE_REPLAYED, type UpdateApplier } from '../dns-transfer/transfer-service';
import { UpdateReplayGuard } from '../dns-transfer/update-replay-guard';
import { COORDINATION, Coordination } from '../consumers/coordination';
import { ApplyDnsUpdate } from '../zones/application/zone.commands';
import { parseKeySpec } from '../dns-transfer/tsig';

/**
 * Runs the `dns` role when this process has it. On the embedded event store (one process
 * holding every role) the role gets its own thread, so DNS answers and index updates do
 * not compete with the API for one event loop; DNS_THREAD=off, or a store of another
 * kind, keeps it on this thread. With DNS_THREADS > 1 further threads answer UDP on the
 * same port (SO_REUSEPORT, so the kernel spreads queries over them) while the first also
 * serves TCP: one core per thread, as NSD runs one server per core.
 */
@Injectable()
export class DnsService implements OnModuleInit, OnApplicationShutdown {
  private runners: DnsRoleRunner[] = [];
  private boundPort: number | null = null;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(METRICS) private readonly metrics: Metrics,
    private readonly commands: CommandBus,
    @Inject(COORDINATION) coordination: Coordination,
    @Optional() @Inject(DNS_QUERY_SINK) private readonly sink?: QuerySink,
    @Optional() private readonly transferStatus?: TransferStatus,
  ) {
    this.replays = new UpdateReplayGuard(coordination);
  }

  /** Signed UPDATEs accepted in this deployment, by MAC (update-replay-guard.ts). */
  private readonly replays: UpdateReplayGuard;

  /** RFC 2136 UPDATEs from the DNS role, as zone commands (one each, all or nothing); a signed replay is refused. */
  private readonly applyUpdate: UpdateApplier = async ({ signature, ...request }) =>
    signature && (await this.replays.replayed(signature.mac, signature.validUntil))
      ? UPDATE_REPLAYED
      : this.commands.execute(new ApplyDnsUpdate(request));

  /** Transfers and NOTIFYs the DNS role reports: counted for /metrics, remembered per secondary. */
  private transferActivity(): (a: TransferActivity) => void {
    const refused = this.metrics.counter(
      'dns_transfer_refused_total',
      'Zone transfer, signed query and UPDATE attempts refused, by reason',
      ['reason'],
    );
    const transfers = this.metrics.counter(
      'dns_transfers_total',
      'Zone transfers served, by request type and answer style (incremental, full, current)',
      ['type', 'style'],
    );
    const notifies = this.metrics.counter(
      'dns_notify_acknowledged_total',
      'NOTIFY messages acknowledged by secondaries',
    );
    return (a) => {
      const now = new Date();
      if (a.kind === 'notify-report') {
        notifies.inc();
        this.transferStatus?.notified(a.report.zone, a.report.target, now);
      } else if (a.report.kind === 'refused') {
        refused.inc({ reason: a.report.reason });
      } else {
        transfers.inc({ type: a.report.type, style: a.report.style });
        this.transferStatus?.transferred(a.report.zone, a.report.client, a.report.serial, now);
      }
    };
  }

  get enabled(): boolean {
    return this.config.roles.includes('dns');
  }

  get port(): number | null {
    return this.boundPort;
  }

  /** `thread` or `inline`, once started. */
  get mode(): 'thread' | 'inline' | null {
    const first = this.runners[0];
    return first ? (first instanceof ThreadedDns ? 'thread' : 'inline') : null;
  }

  /** How many DNS threads (or 1 inline server) answer, once started. */
  get replicas(): number {
    return this.runners.length;
  }

  async onModuleInit(): Promise<void> {
    if (!this.enabled) return;
    const log: DnsLog = (msg, extra) => this.logger.warn(msg, extra);
    const { dnsHost, dnsPort, ddnsZones, nameservers, secondaries, secondaryTsigKey } = this.config;
    // A wrong SECONDARY_TSIG_KEY stops the start, with the reason.
    if (secondaryTsigKey) parseKeySpec(secondaryTsigKey);
    const secretKey = resolveSecretKey(this.config.secretKey, this.config.dataDir);
    const transfers = { secondaries, secondaryTsigKey, secretKey };
    const settings = { dnsHost, dnsPort, ddnsZones, nameservers, secretKey, transfers };
    const sink = new DnsMetricsSink(this.metrics, this.sink);
    const activity = this.transferActivity();
    const script =
      this.config.dnsThread && this.store instanceof SqliteEventStore && this.store.file !== ':memory:'
        ? dnsThreadScript()
        : null;
    if (!script) {
      this.runners = [
        new DnsRole(this.store, settings, sink, log, undefined, { activity, applyUpdate: this.applyUpdate }),
      ];
      this.boundPort = await this.runners[0].start();
      return;
    }
    const store = this.store as SqliteEventStore;
    const threads = canSharePort(dnsHost) ? this.config.dnsThreads : 1;
    // The first thread folds the events for all (index-replica.ts); the others install what it ships.
    const shared = threads > 1;
    const locality = shared ? this.cpuLocality(threads, log) : null;
    const placed = (i: number) => ({
      cpu: locality?.cpus?.[i],
      // Thread i's socket is index i of the group (bind order): the threads start one after another.
      steerByCpu: i === 0 ? (locality?.steerGroup ?? undefined) : undefined,
    });
    // A restart puts a socket at another index of the group than its thread's CPU: from then on
    // no thread is pinned (the steering still gives each socket one CPU's queries).
    const pinned = locality?.cpus;
    let unpinned = false;
    const restarted = pinned
      ? () => {
          if (!unpinned) log('dns threads unpinned: a DNS thread restarted', { cpus: pinned });
          unpinned = true;
          for (const thread of [first, ...replicas]) thread.runOn([...pinned].sort((a, b) => a - b));
        }
      : undefined;
    const hooks = { activity, applyUpdate: this.applyUpdate, restarted };
    const first = new ThreadedDns(
      script,
      store,
      { ...settings, ...placed(0), reusePort: shared, fold: shared ? 'leader' : undefined },
      sink,
      log,
      hooks,
    );
    const replicas: ThreadedDns[] = [];
    shareFold(first, replicas);
    this.runners = [first];
    const port = await first.start();
    this.boundPort = port;
    for (let i = 1; i < threads; i++) {
      const replica = new ThreadedDns(
        script,
        store,
        { ...settings, ...placed(i), dnsPort: port, reusePort: true, udpOnly: true, fold: 'follower' },
        sink,
        log,
        hooks,
      );
      replicas.push(replica);
      shareFold(first, replicas);
      this.runners.push(replica);
      await replica.start();
    }
  }

  /** Where the DNS threads run and how queries reach them (cpu-locality.ts); why not, logged once. */
  private cpuLocality(threads: number, log: DnsLog): CpuLocalityPlan | null {
    const mode = this.config.dnsCpuAffinity;
    const batch = loadUdpBatch();
    const decision = batch.ok
      ? planCpuLocality(mode, threads, batch.addon.allowedCpus())
      : { ok: false as const, reason: batch.reason };
    if (decision.ok) return decision.plan;
    log('dns cpu affinity off', { reason: decision.reason });
    return null;
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.runners.map((r) => r.stop()));
  }
}
/** Sockets of several threads can share a UDP port only with SO_REUSEPORT: the batch addon, or dgram on new Node. */
function canSharePort(host: string): boolean {
  return (isIP(host) !== 0 && process.env.DNS_UDP_BATCH !== 'off' && loadUdpBatch().ok) || supportsReusePort();
}

@Module({ imports: [TransfersModule], providers: [DnsService], exports: [DnsService] })
export class DnsModule {}
