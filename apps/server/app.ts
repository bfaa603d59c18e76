import 'reflect-metadata';
import { DynamicModule, Module, Type } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { ScheduleModule } from '@nestjs/schedule';
import { AccountsModule } from '../../libs/accounts/accounts.module';
import { ApiKeysModule } from '../../libs/api-keys/api-keys.module';
import { AuthModule } from '../../libs/auth/auth.module';
import {
  KeyUsageStore,
  ReadStoreKeyUsageStore,
  SqliteKeyUsageStore,
} from '../../libs/api-keys/application/key-usage.store';
import { AuthGuard } from '../../libs/auth/auth.guard';
import { OperationsModule } from '../../libs/operations/operations.module';
import { TwoFactorModule } from '../../libs/two-factor/two-factor.module';
import { DdnsModule } from '../../libs/ddns/ddns.module';
import { DomainsModule } from '../../libs/domains/domains.module';
import { ZonesModule } from '../../libs/zones/zones.module';
import { HistoryModule } from '../../libs/history/history.module';
import { DnssecModule } from '../../libs/dnssec/dnssec.module';
import { TransfersModule } from '../../libs/transfers/transfers.module';
import { DnsModule } from '../../libs/dns-role/dns.module';
import { UptimeModule } from '../../libs/uptime/uptime.module';
import { EmailAuthModule } from '../../libs/email-auth/email-auth.module';
import { EmailAuthApiModule } from '../../libs/email-auth-api/email-auth-api.module';
import { EmailAuthReportsMirrorModule } from '../../libs/email-auth-api/email-auth-reports-mirror.module';
import { EmailAuthAlertsModule } from '../../libs/email-auth-alerts/email-auth-alerts.module';
import { installManagementOpenApi } from './management-openapi';
import { installEmailAuthOpenApi } from '../../libs/email-auth-api/http/openapi';
import { installWebFront } from '../../libs/dashboard/web-front';
import { RetentionModule } from '../../libs/retention/retention.module';
import { DmarcReportsModule } from '../../libs/dmarc-reports/dmarc-reports.module';
import { CertificatesModule } from '../../libs/certificates/certificates.module';
import { LiveEventsModule } from '../../libs/live-events/live-events.module';
import { DnsAnalyticsModule } from '../../libs/dns-analytics/dns-analytics.module';
import { AccountDeletionModule } from '../../libs/account-deletion/account-deletion.module';
import { WebhooksModule } from '../../libs/webhooks/webhooks.module';
import { ProjectionEngine } from '../../libs/projection-engine/projection-engine';
import { ProjectionDefinition } from '../../libs/projection-engine/projection';
import { EmailAuthDashboardModule } from '../../libs/email-auth/email-auth-dashboard.module';
import { Clock, systemClock } from '../../libs/shared/clock';
import { AppConfig, dataPath } from '../../libs/shared/config';
import { resolveSecretKey, SecretBox } from '../../libs/shared/crypto';
import { AllExceptionsFilter } from '../../libs/shared/http/error.filter';
import { installRequestContext, requestIdFor } from '../../libs/shared/http/request-context';
import { answerClientError, answerFrameworkError, MAX_PARAM_LENGTH } from '../../libs/shared/http/framework-errors';
import { installBodyParsers } from '../../libs/shared/http/request-bodies';
import { useLeanAsyncResourceBind } from '../../libs/shared/http/async-resource-bind';
import { strictValidationPipe } from '../../libs/shared/http/validation';
import { jsonLogger, Logger } from '../../libs/shared/logger';
import { Metrics } from '../../libs/shared/metrics';
import { installRowPageRoute } from '../../libs/email-auth-api/http/row-page-route';
import { installDdnsUpdateRoutes } from '../../libs/ddns/http/ddns-update-route';
import { ALL_PROJECTIONS } from '../../projections';
import { CoreDependencies, CoreModule } from './infra/core.module';
import { createCoordination, createEventStore, createReadStore } from './infra/stores';
import { limitHeapGrowth } from '../../libs/shared/heap-growth';
import { makeDirectoryPrivate } from '../../libs/shared/private-files';

export interface AppOptions {
  clock?: Clock;
  logger?: Logger;
  projections?: ProjectionDefinition[];
  /** Extra modules, e.g. a test binding of a port another context implements (DMARC_AGGREGATE_STATS). */
  modules?: Array<Type | DynamicModule>;
}

export interface RunningApp {
  app: NestFastifyApplication;
  deps: CoreDependencies;
  close(): Promise<void>;
}

/** Request bodies over 1 MiB are 413 (contract §1). */
const BODY_LIMIT = 1024 * 1024;

/** Feature modules of the API role, in the order their routes should register. */
const FEATURE_MODULES: Array<Type | DynamicModule> = [
  AccountsModule,
  ApiKeysModule,
  TwoFactorModule,
  OperationsModule,
  ZonesModule,
  DnssecModule,
  TransfersModule,
  DomainsModule,
  HistoryModule,
  DdnsModule,
  DnsModule,
  UptimeModule,
  EmailAuthModule,
  RetentionModule,
  DmarcReportsModule,
  CertificatesModule,
  DnsAnalyticsModule,
  EmailAuthApiModule,
  EmailAuthReportsMirrorModule,
  EmailAuthAlertsModule,
  EmailAuthDashboardModule,
  LiveEventsModule,
  WebhooksModule,
  AccountDeletionModule,
];

@Module({})
class AppModule {
  static forRoot(deps: CoreDependencies, extra: Array<Type | DynamicModule> = []): DynamicModule {
    return {
      module: AppModule,
      imports: [
        CoreModule.forRoot(deps),
        ScheduleModule.forRoot(),
        AuthModule.forRoot([AccountsModule, ApiKeysModule]),
        ...FEATURE_MODULES,
        ...extra,
      ],
      providers: [
        { provide: APP_GUARD, useClass: AuthGuard },
        { provide: APP_FILTER, useClass: AllExceptionsFilter },
      ],
    };
  }
}

async function openDependencies(config: AppConfig, options: AppOptions): Promise<CoreDependencies> {
  const logger = options.logger ?? jsonLogger(process.stdout, config.logRequests);
  // Before any store opens: what they create inherits the folder's and files' modes.
  const loose = makeDirectoryPrivate(config.dataDir);
  if (loose.length > 0)
    logger.warn('DATA_DIR: could not make these private (owned by another user)', { paths: loose.slice(0, 20) });
  const secretBox = new SecretBox(resolveSecretKey(config.secretKey, config.dataDir));
  const eventStore = await createEventStore(config, options.clock ?? systemClock);
  const readStore = await createReadStore(config);
  const keyUsage: KeyUsageStore = config.mongodbUrl
    ? new ReadStoreKeyUsageStore(readStore)
    : new SqliteKeyUsageStore(dataPath(config, 'key-usage.db'));
  const coordination = await createCoordination(config, readStore);
  const projections = new ProjectionEngine(
    eventStore,
    readStore,
    options.projections ?? ALL_PROJECTIONS,
    (msg, extra) => logger.info(msg, extra as Record<string, unknown>),
    {
      coordination,
      leaseTtlMs: config.leaseTtlMs,
    },
  );
  return {
    config,
    clock: options.clock ?? systemClock,
    logger,
    metrics: new Metrics(),
    secretBox,
    eventStore,
    readStore,
    projections,
    keyUsage,
    coordination,
  };
}

/**
 * Composes the service from its roles. Projections run in the `worker` role, each in
 * the one worker holding its lease; other roles read which generation of each read
 * model is current and follow switches.
 */
export async function createApp(config: AppConfig, options: AppOptions = {}): Promise<RunningApp> {
  limitHeapGrowth(config.heapGrowingPercent);
  // Before Fastify serves a request: it binds one function per request body (decision 0133).
  useLeanAsyncResourceBind();
  const deps = await openDependencies(config, options);
  if (config.roles.includes('worker')) await deps.projections.start();
  else await deps.projections.loadGenerations();

  const adapter = new FastifyAdapter({
    bodyLimit: BODY_LIMIT,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
    genReqId: requestIdFor,
    trustProxy: config.trustedProxies.length ? config.trustedProxies : false,
    logger: false,
  });
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(deps, options.modules), adapter, {
    logger: ['error', 'warn'],
    bufferLogs: false,
    // Ours instead (libs/shared/http/request-bodies.ts): JSON depth and text checks.
    bodyParser: false,
  });
  installBodyParsers(app, BODY_LIMIT);
  installRequestContext(app.getHttpAdapter().getInstance(), deps.logger, deps.metrics, config.logRequests);
  // Before init, which registers the routes: the row-page and DDNS update routes' handlers are swapped as they are added.
  installRowPageRoute(app.getHttpAdapter().getInstance(), app);
  installDdnsUpdateRoutes(app.getHttpAdapter().getInstance(), app);
  app.useGlobalPipes(strictValidationPipe());
  await installWebFront(app, config.roles.includes('api'));
  if (config.roles.includes('api')) installEmailAuthOpenApi(app);
  if (config.roles.includes('api')) installManagementOpenApi(app);
  deps.metrics.gauge(
    'projection_lag_events',
    'Events a projection is behind the head',
    async (g) => {
      for (const p of await deps.projections.status()) g.set({ projection: p.name }, p.lag);
    },
    ['projection'],
  );
  await app.init();

  let closed = false;
  return {
    app,
    deps,
    async close() {
      if (closed) return;
      closed = true;
      // Every step runs even when one fails (a store that is down must not keep the others
      // open); the first failure is reported once all are done.
      const failures: unknown[] = [];
      for (const step of [
        () => app.close(),
        () => deps.projections.stop(),
        () => deps.keyUsage.close(),
        () => deps.readStore.close(),
        () => deps.eventStore.close(),
        () => deps.coordination.close(),
        async () => deps.metrics.close(),
      ]) {
        await step().catch((e: unknown) => failures.push(e));
      }
      if (failures.length > 0) throw failures[0];
    },
  };
}
