import { Global, Inject, Injectable, Module, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { DMARC_AGGREGATE_STATS } from '../email-auth/application/aggregate-stats.port';
import { ReadModelAggregateStats } from './application/aggregate-stats';
import { EnrolledZones } from './application/enrolled-zones';
import { ReportIngestion } from './application/report-ingestion';
import { ReportRetention } from './application/report-retention';
import { SmtpIntake } from './application/smtp-intake';
import { APP_CONFIG, AppConfig } from '../shared/config';
import { ReportsController } from './http/reports.controller';

/** Media types a report arrives as over HTTP; read as raw bytes for the pipeline. */
const REPORT_MEDIA_TYPES = [
  'application/tlsrpt+json',
  'application/tlsrpt+gzip',
  'application/gzip',
  'application/x-gzip',
  'application/zip',
  'application/x-zip-compressed',
  'application/octet-stream',
  'application/xml',
  'text/xml',
  'message/rfc822',
];

/**
 * Report bodies may be as large as the unpacked limit (a plain XML report), above the
 * contract's 1 MiB for JSON bodies; only these media types get that allowance.
 */
@Injectable()
class ReportBodyParsers implements OnModuleInit {
  constructor(
    @Inject(HttpAdapterHost) private readonly host: HttpAdapterHost,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    const fastify = this.host.httpAdapter?.getInstance?.();
    if (!fastify?.addContentTypeParser) return;
    for (const type of REPORT_MEDIA_TYPES) {
      if (fastify.hasContentTypeParser(type)) continue;
      fastify.addContentTypeParser(
        type,
        { parseAs: 'buffer', bodyLimit: this.config.reportMaxUnpackedBytes },
        (_req: unknown, body: Buffer, done: (e: Error | null, b?: Buffer) => void) => done(null, body),
      );
    }
  }
}

/**
 * Global: the DMARC wizard's nightly job (email-auth context) reads aggregate totals through
 * DMARC_AGGREGATE_STATS without the two contexts importing each other.
 */
@Global()
@Module({
  controllers: [ReportsController],
  providers: [
    EnrolledZones,
    ReportIngestion,
    ReportRetention,
    SmtpIntake,
    ReportBodyParsers,
    ReadModelAggregateStats,
    { provide: DMARC_AGGREGATE_STATS, useExisting: ReadModelAggregateStats },
  ],
  exports: [DMARC_AGGREGATE_STATS, ReportIngestion, ReportRetention, SmtpIntake],
})
export class DmarcReportsModule {}
