import { Inject, Module, OnModuleDestroy } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { ApiKeysModule } from '../api-keys/api-keys.module';
import { ReadStore, READ_STORE } from '../readstore/read-store.port';
import { APP_CONFIG, AppConfig, dataPath } from '../shared/config';
import { Metrics, METRICS } from '../shared/metrics';
import { EmailAuthReads } from './application/email-auth-reads';
import { LiveRecords } from '../email-auth/application/live-records';
import {
  RATE_LIMIT_STORE,
  RateLimitStore,
  ReadStoreRateLimitStore,
  SqliteRateLimitStore,
} from './application/rate-limit.store';
import { ReportReads } from './application/report-reads';
import { ReportRowPages } from './application/report-row-pages';
import { ReportScopes } from './application/report-scopes';
import { RowPageCache, rowPageCacheWithMetrics } from './application/row-page-cache';
import { SenderIdentity } from './application/sender-identity';
import { VisibleDomains } from './application/visible-domains';
import { EmailAuthApiController } from './http/email-auth-api.controller';
import { EmailAuthReportsController } from './http/email-auth-reports.controller';
import { EmailAuthApiGuard } from './http/email-auth-api.guard';

/**
 * Email authentication II: the read-only API under /api/v1/email-auth: domains, policy,
 * senders, events, and the report endpoints (DMARC summary, sources, reports, failure
 * reports, TLS-RPT) over the report read models. Everything in this module's controllers
 * is in /api/v1/openapi.json; the dashboard mirrors live in EmailAuthReportsMirrorModule.
 */
@Module({
  imports: [ApiKeysModule, AccountsModule],
  controllers: [EmailAuthApiController, EmailAuthReportsController],
  providers: [
    EmailAuthReads,
    LiveRecords,
    VisibleDomains,
    EmailAuthApiGuard,
    SenderIdentity,
    ReportReads,
    ReportRowPages,
    ReportScopes,
    {
      provide: RowPageCache,
      inject: [APP_CONFIG, METRICS],
      useFactory: (config: AppConfig, metrics: Metrics) =>
        rowPageCacheWithMetrics(config.emailAuthPageCacheMiB * 1024 * 1024, metrics),
    },
    {
      provide: RATE_LIMIT_STORE,
      inject: [APP_CONFIG, READ_STORE],
      useFactory: (config: AppConfig, readStore: ReadStore): RateLimitStore =>
        config.mongodbUrl
          ? new ReadStoreRateLimitStore(readStore)
          : new SqliteRateLimitStore(dataPath(config, 'email-auth-api-rates.db')),
    },
  ],
  exports: [ReportReads, ReportScopes, EmailAuthReads],
})
export class EmailAuthApiModule implements OnModuleDestroy {
  constructor(@Inject(RATE_LIMIT_STORE) private readonly rates: RateLimitStore) {}

  async onModuleDestroy(): Promise<void> {
    await this.rates.close();
  }
}
