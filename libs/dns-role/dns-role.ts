import { DnsServer, ZoneIndex, type AnswerTally, type QuerySink } from '../dns-server';
import { DEFAULT_JOURNAL_BOUNDS, Journal } from '../dns-transfer/journal';
import { Notifier, type NotifyReport } from '../dns-transfer/notifier';
import { ACL_EVENT_TYPES, parseEndpoint, TransferAcl } from '../dns-transfer/transfer-acl';
import { TransferService, type TransferReport, type UpdateApplier } from '../dns-transfer/transfer-service';
import { parseKeySpec } from '../dns-transfer/tsig';
import { EventStore } from '../eventstore/event-store.port';
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
  udpOnly?: boolean;
  transfers?: TransferSettings;
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

  constructor(
    private readonly store: EventStore,
    private readonly settings: DnsRoleSettings,
    private readonly sink: QuerySink | undefined,
    private readonly log: DnsLog,
    /** Counts for the metrics without an object per query (a DNS thread's tally); else the sink counts. */
    private readonly tally?: AnswerTally,
    private readonly hooks: { activity?: (a: TransferActivity) => void; applyUpdate?: UpdateApplier } = {},
  ) {}

  async start(): Promise<number> {
    const { ddnsZones, nameservers, secretKey, dnsHost, dnsPort, reusePort, udpOnly, transfers } = this.settings;
    let special: TransferService | undefined;
    let acl: TransferAcl | undefined;
    let live = false;
    if (transfers) {
      const box = new SecretBox(transfers.secretKey);
      acl = new TransferAcl({
        operatorSecondaries: transfers.secondaries.map(parseEndpoint),
        operatorKey: transfers.secondaryTsigKey ? parseKeySpec(transfers.secondaryTsigKey) : null,
        open: (sealed, purpose) => box.open(sealed, purpose),
        log: this.log,
      });
      const aclNow = acl;
      // Only zones someone may transfer keep a history (journal.ts); the others answer IXFR with the whole zone.
      const journal = new Journal(DEFAULT_JOURNAL_BOUNDS, (zone) => aclNow.transferable(zone));
      this.index.observe(journal.apply);
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
    const aclFold = acl;
    this.feeder = new DnsIndexFeeder(this.store, this.index, {
      ddnsZones,
      nameservers,
      secretKey,
      log: this.log,
      also: aclFold && { handles: ACL_EVENT_TYPES, apply: (e) => aclFold.apply(e) },
    });
    await this.feeder.start();
    live = true;
    this.server = new DnsServer({
      host: dnsHost,
      port: dnsPort,
      index: this.index,
      reusePort,
      udpOnly,
      sink: this.sink,
      tally: this.tally,
      special,
      onError: (err) => this.log('dns server error', { error: err.message }),
    });
    return (await this.server.start()).port;
  }

  async stop(): Promise<void> {
    this.notifier?.stop();
    await this.server?.stop();
    await this.feeder?.stop();
  }
}
