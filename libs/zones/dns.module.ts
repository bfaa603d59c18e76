import { Inject, Injectable, Module, OnApplicationShutdown, OnModuleInit, Optional } from '@nestjs/common';
import type { QuerySink } from '../dns-server';
import { EVENT_STORE, EventStore } from '../eventstore/event-store.port';
import { APP_CONFIG, AppConfig } from '../shared/config';
import { LOGGER, Logger } from '../shared/logger';
import { Metrics, METRICS } from '../shared/metrics';
import { DnsMetricsSink } from './application/dns-metrics.sink';
import { DnsLog, DnsRole, DnsRoleRunner } from './application/dns-role';
import { dnsThreadScript, ThreadedDns } from './application/threaded-dns';
import { SqliteEventStore } from '../eventstore/sqlite/sqlite-event-store';

/** Optional hook for query logging / analytics: provide a QuerySink under this token to receive every answered query. */
export const DNS_QUERY_SINK = Symbol('DNS_QUERY_SINK');

/**
 * Runs the `dns` role when this process has it. On the embedded event store (one process
 * holding every role) the role gets its own thread, so DNS answers and index updates do
 * not compete with the API for one event loop; DNS_THREAD=off, or a store of another
 * kind, keeps it on this thread.
 */
@Injectable()
export class DnsService implements OnModuleInit, OnApplicationShutdown {
  private runner: DnsRoleRunner | null = null;
  private boundPort: number | null = null;

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
    return this.boundPort;
  }

  /** `thread` or `inline`, once started. */
  get mode(): 'thread' | 'inline' | null {
    return this.runner ? (this.runner instanceof ThreadedDns ? 'thread' : 'inline') : null;
  }

  async onModuleInit(): Promise<void> {
    if (!this.enabled) return;
    const log: DnsLog = (msg, extra) => this.logger.warn(msg, extra);
    const { dnsHost, dnsPort, ddnsZones, nameservers } = this.config;
    const settings = { dnsHost, dnsPort, ddnsZones, nameservers };
    const sink = new DnsMetricsSink(this.metrics, this.sink);
    const script = this.config.dnsThread && this.store instanceof SqliteEventStore && this.store.file !== ':memory:' ? dnsThreadScript() : null;
    this.runner = script
      ? new ThreadedDns(script, this.store as SqliteEventStore, settings, sink, log)
      : new DnsRole(this.store, settings, sink, log);
    this.boundPort = await this.runner.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.runner?.stop();
  }
}
@Module({ providers: [DnsService], exports: [DnsService] })
export class DnsModule {}
