import { Global, Inject, Injectable, Module, OnApplicationShutdown, Optional } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { APP_CONFIG, AppConfig, dataPath } from '../shared/config';
import { LOGGER, Logger } from '../shared/logger';
import { METRICS, Metrics } from '../shared/metrics';
import { DNS_QUERY_SINK } from '../dns-server';
import { DnsAnalyticsQueries } from './application/dns-analytics.queries';
import { IpIntel } from './application/ip-intel';
import { QueryLogRetention } from './application/query-log-retention';
import { QueryLogWriter } from './application/query-log-writer';
import { queryLogThreadScript, ThreadedQueryLog, type QueryLogPipeline } from './application/threaded-query-log';
import { QUERY_LOG_STORE, QueryLogStore } from './application/query-log.store';
import { DnsAnalyticsController } from './http/dns-analytics.controller';
import { SqliteQueryLogStore } from './infrastructure/sqlite-query-log.store';

export const QUERY_LOG_FILE = 'dns-query-log.db';

/** The query-log pipeline (QueryLogPipeline) of this process: only with the `dns` role and QUERY_LOG not off. */
export const QUERY_LOG_WRITER = Symbol('QUERY_LOG_WRITER');

/** Closes the writer (flushing what it holds) before the store under it. */
@Injectable()
class QueryLogLifecycle implements OnApplicationShutdown {
  constructor(
    @Inject(QUERY_LOG_STORE) private readonly store: QueryLogStore,
    @Optional() @Inject(QUERY_LOG_WRITER) private readonly writer?: QueryLogPipeline,
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
      // The driver is loaded only then: ~6 MB of heap and 130 modules an embedded installation never uses.
      useFactory: async (config: AppConfig): Promise<QueryLogStore> =>
        config.mongodbUrl
          ? (await import('./infrastructure/mongo-query-log.store')).MongoQueryLogStore.connect(config.mongodbUrl)
          : new SqliteQueryLogStore(dataPath(config, QUERY_LOG_FILE)),
    },
    {
      provide: QUERY_LOG_WRITER,
      inject: [APP_CONFIG, QUERY_LOG_STORE, IpIntel, METRICS, LOGGER],
      useFactory: async (
        config: AppConfig,
        store: QueryLogStore,
        intel: IpIntel,
        metrics: Metrics,
        logger: Logger,
      ): Promise<QueryLogPipeline | null> => {
        if (!config.roles.includes('dns') || !config.queryLog) return null;
        const warn = (error: string) => logger.warn('query log write failed', { error });
        const script = config.queryLogThread ? queryLogThreadScript() : null;
        const target = config.mongodbUrl
          ? ({ kind: 'mongo', url: config.mongodbUrl } as const)
          : store instanceof SqliteQueryLogStore && store.file !== ':memory:'
            ? ({ kind: 'sqlite', file: store.file } as const)
            : null;
        // Off the main thread when the worker script is built and the thread can open the same store.
        if (script && target) return ThreadedQueryLog.start(script, target, metrics, warn);
        // Written here: this process enriches, so it loads the IP databases (nothing else in it needs them up front).
        void intel.ready();
        return new QueryLogWriter(store, intel, metrics, (e) => warn(e instanceof Error ? e.message : String(e)));
      },
    },
    { provide: DNS_QUERY_SINK, inject: [QUERY_LOG_WRITER], useFactory: (w: QueryLogPipeline | null) => w ?? undefined },
    QueryLogLifecycle,
    QueryLogRetention,
    DnsAnalyticsQueries,
  ],
  exports: [DNS_QUERY_SINK, QUERY_LOG_STORE, QUERY_LOG_WRITER, QueryLogRetention, IpIntel],
})
export class DnsAnalyticsModule {}
