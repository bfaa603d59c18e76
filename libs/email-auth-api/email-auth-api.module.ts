import { Inject, Module, OnModuleDestroy } from '@nestjs/common';
import { ApiKeysModule } from '../api-keys/api-keys.module';
import { ReadStore, READ_STORE } from '../readstore/read-store.port';
import { APP_CONFIG, AppConfig, dataPath } from '../shared/config';
import { EmailAuthReads } from './application/email-auth-reads';
import { LiveRecords } from './application/live-records';
import { RATE_LIMIT_STORE, RateLimitStore, ReadStoreRateLimitStore, SqliteRateLimitStore } from './application/rate-limit.store';
import { VisibleDomains } from './application/visible-domains';
import { EmailAuthApiController } from './http/email-auth-api.controller';
import { EmailAuthApiGuard } from './http/email-auth-api.guard';

/**
 * Email authentication II: the read-only API under /api/v1/email-auth. Report-backed
 * endpoints (DMARC summary, sources, reports, failure reports, TLS-RPT) join this
 * controller set once the report ingestion context's read models exist; they reuse the
 * guard, VisibleDomains, the cursor helpers and `days`.
 */
@Module({
  imports: [ApiKeysModule],
  controllers: [EmailAuthApiController],
  providers: [
    EmailAuthReads,
    LiveRecords,
    VisibleDomains,
    EmailAuthApiGuard,
    {
      provide: RATE_LIMIT_STORE,
      inject: [APP_CONFIG, READ_STORE],
      useFactory: (config: AppConfig, readStore: ReadStore): RateLimitStore =>
        config.mongodbUrl ? new ReadStoreRateLimitStore(readStore) : new SqliteRateLimitStore(dataPath(config, 'email-auth-api-rates.db')),
    },
  ],
})
export class EmailAuthApiModule implements OnModuleDestroy {
  constructor(@Inject(RATE_LIMIT_STORE) private readonly rates: RateLimitStore) {}

  async onModuleDestroy(): Promise<void> {
    await this.rates.close();
  }
}
