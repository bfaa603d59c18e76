import { createHash } from 'node:crypto';
import { registerUpcaster } from '../../eventstore/upcasters';
import { DomainEvent } from '../../shared/decider';
import { AggregateRecord, AggregateReport, PublishedPolicy } from './aggregate-report';
import { FailureReport } from './failure-report';
import { PackedRecords, packRecords, RECORDS_PER_CHUNK, unpackRecords } from './packed-records';
import { TlsPolicyResult, TlsReport } from './tls-report';

export { RECORDS_PER_CHUNK };

/** Where a report came in. */
export type ReportSource = 'smtp' | 'https' | 'admin' | 'cli';

/** The enrolled zone a report belongs to and the account whose add-on lists it. */
export interface ZoneOwner {
  zone: string;
  account_id: number;
}

interface Received {
  report_key: string;
  zone: string;
  account_id: number;
  received_at: string;
  source: ReportSource;
}

export type AggregateReportReceived = DomainEvent<
  'DmarcAggregateReportReceived',
  Received & {
    org_name: string;
    email: string;
    report_id: string;
    begin: string;
    end: string;
    generator?: string;
    policy: PublishedPolicy;
    record_count: number;
    message_count: number;
    passing_count: number;
    chunk_count: number;
  }
>;

interface RecordsChunk {
  report_key: string;
  zone: string;
  begin: string;
  /** Index in the report of the chunk's first record. */
  offset: number;
}

/** One slice of a report's records, packed (schema version 2; read them with `chunkRecords`). */
export type AggregateRecordsAdded = DomainEvent<'DmarcAggregateRecordsAdded', RecordsChunk & PackedRecords>;

/** The same slice as stored before version 2: the records as objects. Lifted to version 2 on read. */
export type AggregateRecordsAddedV1 = DomainEvent<
  'DmarcAggregateRecordsAdded',
  RecordsChunk & { records: AggregateRecord[] }
>;

/**
 * Schema version of an aggregate report's events (metadata `version`, stamped on the
 * append of header and chunks): 2 since chunks carry packed records. The header's shape
 * is the same in both versions.
 */
export const AGGREGATE_REPORT_EVENTS_VERSION = 2;

registerUpcaster(
  'DmarcAggregateRecordsAdded',
  1,
  (data: AggregateRecordsAddedV1['data']): AggregateRecordsAdded['data'] => {
    const { records, ...chunk } = data;
    return { ...chunk, ...packRecords(records) };
  },
);

/** The records of a chunk event, as objects (a chunk at a time: never a whole large report). */
export const chunkRecords = (data: PackedRecords): AggregateRecord[] => unpackRecords(data);

export type FailureReportReceived = DomainEvent<
  'DmarcFailureReportReceived',
  Received &
    Omit<FailureReport, 'kind' | 'subject' | 'mail_from'> & {
      /** SecretBox-sealed (purpose `FAILURE_REPORT_SEAL`); null when the report had none. */
      subject_sealed: string | null;
      mail_from_sealed: string | null;
    }
>;

export type TlsReportReceived = DomainEvent<
  'TlsReportReceived',
  Received & {
    org_name: string;
    contact_info: string;
    report_id: string;
    begin: string;
    end: string;
    policies: TlsPolicyResult[];
    successful_sessions: number;
    failed_sessions: number;
  }
>;

/** Contract §15: reports are kept three years. Read models drop what began before `cutoff`. */
export type ReportRetentionApplied = DomainEvent<'DmarcReportRetentionApplied', { cutoff: string; applied_at: string }>;

export type ReportEvent = AggregateReportReceived | AggregateRecordsAdded | FailureReportReceived | TlsReportReceived;

export const REPORT_EVENT_TYPES = [
  'DmarcAggregateReportReceived',
  'DmarcAggregateRecordsAdded',
  'DmarcFailureReportReceived',
  'TlsReportReceived',
] as const satisfies readonly ReportEvent['type'][];

export const REPORT_RETENTION_STREAM = 'dmarc-report-retention';
export const REPORT_RETENTION_YEARS = 3;

/** The retention cutoff for a run at `now`: three calendar years back. */
export function retentionCutoff(now: Date): Date {
  const cutoff = new Date(now.getTime());
  cutoff.setUTCFullYear(cutoff.getUTCFullYear() - REPORT_RETENTION_YEARS);
  return cutoff;
}

/**
 * The seed's event-log names (`GET /events`) of these facts. Stored types follow the
 * codebase's PascalCase past tense; the read API publishes the seed's names. Record
 * chunks are part of their report's fact, not events of their own in the log.
 */
export const SEED_EVENT_NAME: Record<ReportEvent['type'], 'dmarc.report.received' | 'tls.report.received' | null> = {
  DmarcAggregateReportReceived: 'dmarc.report.received',
  DmarcFailureReportReceived: 'dmarc.report.received',
  TlsReportReceived: 'tls.report.received',
  DmarcAggregateRecordsAdded: null,
};

export const FAILURE_REPORT_SEAL = 'dmarc-failure-report';

const hash = (...parts: string[]): string =>
  createHash('sha256').update(parts.join('\u0000')).digest('hex').slice(0, 40);

/**
 * A report's identity: reporter (org and contact address, case-folded) plus its report
 * id. Two sends of one report share it, whatever their packaging (xml, gzip, zip, mail).
 */
export const aggregateReportKey = (r: Pick<AggregateReport, 'org_name' | 'email' | 'report_id'>): string =>
  hash('aggregate', r.org_name.trim().toLowerCase(), r.email.trim().toLowerCase(), r.report_id.trim());

export const tlsReportKey = (r: Pick<TlsReport, 'org_name' | 'contact_info' | 'report_id'>): string =>
  hash('tls', r.org_name.trim().toLowerCase(), r.contact_info.trim().toLowerCase(), r.report_id.trim());

/** Failure reports have no report id: the report mail's own Message-ID (hashed, never kept) or its bytes stand in. */
export const failureReportKey = (reporter: string, reportMessageId: string | null, raw: Uint8Array): string =>
  reportMessageId
    ? hash('failure', reporter.toLowerCase(), reportMessageId.trim())
    : hash('failure-body', createHash('sha256').update(raw).digest('hex'));

/** Stream of one report; created with NO_STREAM, so a second copy of the report cannot be stored. */
export const reportStream = (key: string): string => `dmarc-report-${key}`;

/** The events of one accepted aggregate report: its header and its records in chunks, appended in one append. */
export function aggregateReportEvents(
  report: AggregateReport,
  key: string,
  owner: ZoneOwner,
  receivedAt: string,
  source: ReportSource,
): ReportEvent[] {
  const chunks: AggregateRecordsAdded[] = report.records.chunks().map((packed, i) => ({
    type: 'DmarcAggregateRecordsAdded',
    data: { report_key: key, zone: owner.zone, begin: report.begin, offset: i * RECORDS_PER_CHUNK, ...packed },
  }));
  const header: AggregateReportReceived = {
    type: 'DmarcAggregateReportReceived',
    data: {
      report_key: key,
      zone: owner.zone,
      account_id: owner.account_id,
      received_at: receivedAt,
      source,
      org_name: report.org_name,
      email: report.email,
      report_id: report.report_id,
      begin: report.begin,
      end: report.end,
      ...(report.generator ? { generator: report.generator } : {}),
      policy: report.policy,
      record_count: report.records.length,
      message_count: report.records.messages,
      passing_count: report.records.passing,
      chunk_count: chunks.length,
    },
  };
  return [header, ...chunks];
}

export function tlsReportEvent(
  report: TlsReport,
  key: string,
  owner: ZoneOwner,
  receivedAt: string,
  source: ReportSource,
): TlsReportReceived {
  return {
    type: 'TlsReportReceived',
    data: {
      report_key: key,
      zone: owner.zone,
      account_id: owner.account_id,
      received_at: receivedAt,
      source,
      org_name: report.org_name,
      contact_info: report.contact_info,
      report_id: report.report_id,
      begin: report.begin,
      end: report.end,
      policies: report.policies,
      successful_sessions: report.policies.reduce((n, p) => n + p.successful_sessions, 0),
      failed_sessions: report.policies.reduce((n, p) => n + p.failed_sessions, 0),
    },
  };
}
