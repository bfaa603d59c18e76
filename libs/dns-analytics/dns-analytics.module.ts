import { Global, Inject, Injectable, Module, OnApplicationShutdown, Optional } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { APP_CONFIG, AppConfig, dataPath } from '../shared/config';
import { LOGGER, Logger } from '../shared/logger';
import { METRICS, Metrics } from '../shared/metrics';
import { DNS_QUERY_SINK } from '../dns-role/dns.module';
import { DnsAnalyticsQueries } from './application/dns-analytics.queries';
import { IpIntel } from './application/ip-intel';
import { QueryLogRetention } from './application/query-log-retention';
import { QueryLogWriter } from './application/query-log-writer';
import { QUERY_LOG_STORE, QueryLogStore } from './application/query-log.store';
import { DnsAnalyticsController } from './http/dns-analytics.controller';
import { MongoQueryLogStore } from './infrastructure/mongo-query-log.store';
import { SqliteQueryLogStore } from './infrastructure/sqlite-query-log.store';

export const QUERY_LOG_FILE = 'dns-query-log.db';

/** The query-log writer of this process: only with the `dns` role and QUERY_LOG not off. */
export const QUERY_LOG_WRITER = Symbol('QUERY_LOG_WRITER');

/** Closes the writer (flushing what it holds) before the store under it. */
@Injectable()
class QueryLogLifecycle implements OnApplicationShutdown {
  constructor(
    @Inject(QUERY_LOG_STORE) private readonly store: QueryLogStore,
    @Optional() @Inject(QUERY_LOG_WRITER) private readonly writer?: QueryLogWriter,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await this.writer?.close();
    await this.store.close();
  }
}

/**
 * DNS analytics (contract §12): the query-log pipeline plugged into the DNS server's
 * query sink, its store, retention, and the /dns-analytics endpoints. Global so the DNS
 * module finds the sink under DNS_QUERY_SINK.
 */
@Global()
@Module({
  imports: [AccountsModule],
  controllers: [DnsAnalyticsController],
  providers: [
    IpIntel,
    {
      provide: QUERY_LOG_STORE,
      inject: [APP_CONFIG],
      // MongoDB when MONGODB_URL is set (with the read models), else its own SQLite file under DATA_DIR.
      useFactory: async (config: AppConfig): Promise<QueryLogStore> =>
        config.mongodbUrl ? MongoQueryLogStore.connect(config.mongodbUrl) : new SqliteQueryLogStore(dataPath(config, QUERY_LOG_FILE)),
    },
    {
      provide: QUERY_LOG_WRITER,
      inject: [APP_CONFIG, QUERY_LOG_STORE, IpIntel, METRICS, LOGGER],
      useFactory: (config: AppConfig, store: QueryLogStore, intel: IpIntel, metrics: Metrics, logger: Logger) =>
        config.roles.includes('dns') && config.queryLog
          ? new QueryLogWriter(store, intel, metrics, (e) => logger.warn('query log write failed', { error: e instanceof Error ? e.message : String(e) }))
          : null,
    },
    { provide: DNS_QUERY_SINK, inject: [QUERY_LOG_WRITER], useFactory: (w: QueryLogWriter | null) => w ?? undefined },
    QueryLogLifecycle,
    QueryLogRetention,
    DnsAnalyticsQueries,
  ],
  exports: [DNS_QUERY_SINK, QUERY_LOG_STORE, QUERY_LOG_WRITER, QueryLogRetention, IpIntel],
})
export class DnsAnalyticsModule {}
