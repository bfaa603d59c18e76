import { Inject, Injectable, Module, OnApplicationShutdown, OnModuleInit, Optional } from '@nestjs/common';
import { DnsServer, ZoneIndex, type QuerySink } from '../dns-server';
import { EVENT_STORE, EventStore } from '../eventstore/event-store.port';
import { APP_CONFIG, AppConfig } from '../shared/config';
import { LOGGER, Logger } from '../shared/logger';
import { Metrics, METRICS } from '../shared/metrics';
import { DnsMetricsSink } from './application/dns-metrics.sink';
import { DnsIndexFeeder } from './application/dns-index-feeder';

/** Optional hook for query logging / analytics: provide a QuerySink under this token to receive every answered query. */
export const DNS_QUERY_SINK = Symbol('DNS_QUERY_SINK');

/**
 * The `dns` role: an in-memory zone index fed by its own event subscription, served over
 * UDP and TCP on DNS_HOST:DNS_PORT. The server starts only once the index has caught up
 * with the event store, so a restarted replica never answers NXDOMAIN for existing hosts.
 */
@Injectable()
export class DnsService implements OnModuleInit, OnApplicationShutdown {
  readonly index = new ZoneIndex();
  private feeder: DnsIndexFeeder | null = null;
  private server: DnsServer | null = null;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(METRICS) private readonly metrics: Metrics,
    @Optional() @Inject(DNS_QUERY_SINK) private readonly sink?: QuerySink,
  ) {}

  get enabled(): boolean {
    return this.config.roles.includes('dns');
  }

  get port(): number | null {
    return this.server?.port ?? null;
  }

  async onModuleInit(): Promise<void> {
    if (!this.enabled) return;
    const log = (msg: string, extra?: Record<string, unknown>) => this.logger.warn(msg, extra);
    this.feeder = new DnsIndexFeeder(this.store, this.index, { ddnsZones: this.config.ddnsZones, nameservers: this.config.nameservers, log });
    await this.feeder.start();
    this.server = new DnsServer({
      host: this.config.dnsHost,
      port: this.config.dnsPort,
      index: this.index,
      sink: new DnsMetricsSink(this.metrics, this.sink),
      onError: (err) => log('dns server error', { error: err.message }),
    });
    await this.server.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.server?.stop();
    await this.feeder?.stop();
  }
}

@Module({ providers: [DnsService], exports: [DnsService] })
export class DnsModule {}
