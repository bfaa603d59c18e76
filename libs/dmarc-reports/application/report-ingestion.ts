import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Counter } from 'prom-client';
import { EventStreams } from '../../eventstore/event-streams';
import { Position, WrongExpectedVersionError } from '../../eventstore/event-store.port';
import { CLOCK, Clock } from '../../shared/clock';
import { APP_CONFIG, AppConfig } from '../../shared/config';
import { SecretBox, SECRET_BOX } from '../../shared/crypto';
import { LOGGER, Logger } from '../../shared/logger';
import { Metrics, METRICS } from '../../shared/metrics';
import { RefusalReason, refuse, ReportRefused } from '../domain/report-refusal';
import {
  AGGREGATE_REPORT_EVENTS_VERSION,
  aggregateReportEvents,
  aggregateReportKey,
  FAILURE_REPORT_SEAL,
  failureReportKey,
  ReportEvent,
  ReportSource,
  reportStream,
  tlsReportEvent,
  tlsReportKey,
  ZoneOwner,
} from '../domain/report.events';
import { EnrolledZones } from './enrolled-zones';
import { ParseHints, ParsedReport, ReportParser } from './report-parser';

export interface IngestOptions {
  source: ReportSource;
  hints?: ParseHints;
  /** The zone named by the address a mail was sent to: the report must be for it. */
  zone?: string;
  /** Refuse any other kind of report before storing anything (the TLS-RPT endpoint takes TLS reports only). */
  only?: ParsedReport['kind'];
  correlationId?: string;
}

export interface IngestResult {
  kind: 'aggregate' | 'failure' | 'tls';
  report_key: string;
  zone: string;
  reporter: string;
  report_id: string | null;
  record_count: number;
  position: Position;
}

/**
 * The one pipeline behind SMTP, HTTPS TLS-RPT, `POST /admin/reports` and the CLI:
 * parse (bounded unpacking, no entity expansion), find the enrolled zone, and append the
 * report's events to its own stream with NO_STREAM in a single append. The stream name
 * derives from reporter + report id, so a duplicate loses the append, and a report's
 * records are stored all together or not at all. Every refusal is logged and counted.
 */
@Injectable()
export class ReportIngestion {
  private readonly accepted: Counter<string>;
  private readonly refused: Counter<string>;
  private readonly records: Counter<string>;
  private readonly parser: ReportParser;

  constructor(
    private readonly streams: EventStreams,
    private readonly zones: EnrolledZones,
    @Inject(SECRET_BOX) private readonly secretBox: SecretBox,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(METRICS) metrics: Metrics,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.parser = new ReportParser(config.reportMaxUnpackedBytes);
    this.accepted = metrics.counter('dmarc_reports_accepted_total', 'Reports stored, by kind and intake path', [
      'kind',
      'source',
    ]);
    this.refused = metrics.counter('dmarc_reports_refused_total', 'Reports refused, by reason and intake path', [
      'reason',
      'source',
    ]);
    this.records = metrics.counter('dmarc_report_records_total', 'Aggregate report records stored', ['source']);
  }

  async ingest(raw: Uint8Array, options: IngestOptions): Promise<IngestResult> {
    try {
      const report = await this.parser.parse(raw, options.hints);
      if (options.only && report.kind !== options.only)
        throw refuse('unsupported', `only ${options.only} reports are accepted here, this is a ${report.kind} report`);
      return await this.store(report, raw, options);
    } catch (e) {
      if (e instanceof ReportRefused)
        this.noteRefusal(e.reason, options.source, e.message, {
          bytes: raw.length,
          correlation_id: options.correlationId,
        });
      throw e;
    }
  }

  /** Logs and counts a refusal; also used by the SMTP intake for what it refuses before DATA. */
  noteRefusal(reason: RefusalReason, source: ReportSource, detail: string, extra: Record<string, unknown> = {}): void {
    this.refused.inc({ reason, source });
    this.logger.warn('report refused', { reason, source, detail, ...extra });
  }

  private async store(report: ParsedReport, raw: Uint8Array, options: IngestOptions): Promise<IngestResult> {
    const domains =
      report.kind === 'aggregate'
        ? [report.policy.domain]
        : report.kind === 'failure'
          ? [report.reported_domain]
          : report.policies.map((p) => p.policy_domain);
    const owner = await this.ownerOf(domains, options.zone);
    const receivedAt = this.clock.now().toISOString();
    // Only primitives are used once the append is under way: the report's records (tens of
    // MB for a large one) are garbage as soon as its events are serialised.
    const kind = report.kind;
    let key: string;
    let events: ReportEvent[];
    let reporter: string;
    let reportId: string | null;
    let recordCount = 0;
    switch (report.kind) {
      case 'aggregate':
        key = aggregateReportKey(report);
        events = aggregateReportEvents(report, key, owner, receivedAt, options.source);
        reporter = report.org_name;
        reportId = report.report_id;
        recordCount = report.records.length;
        break;
      case 'tls':
        key = tlsReportKey(report);
        events = [tlsReportEvent(report, key, owner, receivedAt, options.source)];
        reporter = report.org_name;
        reportId = report.report_id;
        break;
      case 'failure': {
        key = failureReportKey(report.reporter, report.report_message_id, raw);
        const { kind: _kind, subject, mail_from, report_message_id: _messageId, ...visible } = report;
        events = [
          {
            type: 'DmarcFailureReportReceived',
            data: {
              report_key: key,
              zone: owner.zone,
              account_id: owner.account_id,
              received_at: receivedAt,
              source: options.source,
              ...visible,
              subject_sealed: subject === null ? null : this.secretBox.seal(subject, FAILURE_REPORT_SEAL),
              mail_from_sealed: mail_from === null ? null : this.secretBox.seal(mail_from, FAILURE_REPORT_SEAL),
            },
          },
        ];
        reporter = report.reporter;
        reportId = null;
        break;
      }
    }
    let position: Position;
    try {
      // No account_id in metadata: report facts are telemetry, not the account's audit log (contract §15).
      const result = await this.streams.append(reportStream(key), events, 'no_stream', {
        actor: `report:${options.source}`,
        correlation_id: options.correlationId ?? randomUUID(),
        ...(kind === 'aggregate' ? { version: AGGREGATE_REPORT_EVENTS_VERSION } : {}),
      });
      position = result.position;
    } catch (e) {
      if (e instanceof WrongExpectedVersionError) {
        throw refuse('duplicate', `report ${reportId ?? key} from ${reporter} was already received`);
      }
      throw e;
    }
    this.accepted.inc({ kind, source: options.source });
    if (recordCount) this.records.inc({ source: options.source }, recordCount);
    this.logger.info('report accepted', {
      kind,
      source: options.source,
      zone: owner.zone,
      reporter,
      report_key: key,
      records: recordCount,
      correlation_id: options.correlationId,
    });
    return {
      kind,
      report_key: key,
      zone: owner.zone,
      reporter,
      report_id: reportId,
      record_count: recordCount,
      position,
    };
  }

  private async ownerOf(domains: string[], addressedZone: string | undefined): Promise<ZoneOwner> {
    let owner: ZoneOwner | null = null;
    for (const domain of domains) {
      const found = await this.zones.owner(domain);
      if (!found) throw refuse('unknown_domain', `${domain} is not a zone enrolled in Email Authentication`);
      if (owner && (owner.zone !== found.zone || owner.account_id !== found.account_id)) {
        throw refuse('malformed', 'a TLS report must cover policy domains of one zone');
      }
      owner = found;
    }
    if (!owner) throw refuse('malformed', 'the report names no domain');
    if (addressedZone && addressedZone !== owner.zone) {
      throw refuse('unknown_domain', `report for ${owner.zone} was sent to the report address of ${addressedZone}`);
    }
    return owner;
  }
}
