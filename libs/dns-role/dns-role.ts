import { DnsServer, ZoneIndex, type AnswerTally, type QuerySink } from '../dns-server';
import { EventStore } from '../eventstore/event-store.port';
import { DnsIndexFeeder } from './dns-index-feeder';

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
}

export type DnsLog = (msg: string, extra?: Record<string, unknown>) => void;

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
 */
export class DnsRole implements DnsRoleRunner {
  private readonly index = new ZoneIndex();
  private feeder: DnsIndexFeeder | null = null;
  private server: DnsServer | null = null;

  constructor(
    private readonly store: EventStore,
    private readonly settings: DnsRoleSettings,
    private readonly sink: QuerySink | undefined,
    private readonly log: DnsLog,
    /** Counts for the metrics without an object per query (a DNS thread's tally); else the sink counts. */
    private readonly tally?: AnswerTally,
  ) {}

  async start(): Promise<number> {
    const { ddnsZones, nameservers, secretKey, dnsHost, dnsPort, reusePort, udpOnly } = this.settings;
    this.feeder = new DnsIndexFeeder(this.store, this.index, { ddnsZones, nameservers, secretKey, log: this.log });
    await this.feeder.start();
    this.server = new DnsServer({
      host: dnsHost,
      port: dnsPort,
      index: this.index,
      reusePort,
      udpOnly,
      sink: this.sink,
      tally: this.tally,
      onError: (err) => this.log('dns server error', { error: err.message }),
    });
    return (await this.server.start()).port;
  }

  async stop(): Promise<void> {
    await this.server?.stop();
    await this.feeder?.stop();
  }
}
