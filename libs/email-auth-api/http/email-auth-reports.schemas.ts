import { ApiProperty, ApiPropertyOptional, ApiPropertyOptions } from '@nestjs/swagger';
import { nullableRef } from './email-auth-api.schemas';

/**
 * Response bodies of the report endpoints (DMARC summary, sources, aggregate reports and
 * rows, failure reports, TLS-RPT summary) as OpenAPI schemas. Shared by the API under
 * /api/v1/email-auth and the dashboard mirrors under /email-auth/domains/{zone}.
 */
const nullableString = (description?: string): ApiPropertyOptions => ({ type: String, nullable: true, description });
const nullableNumber = (description?: string): ApiPropertyOptions => ({ type: Number, nullable: true, description });
const COUNTS: ApiPropertyOptions = {
  type: 'object',
  additionalProperties: { type: 'integer' },
  description: 'Messages by result keyword as reported (e.g. pass, fail; none, quarantine, reject)',
};
const RATE = (what: string) => nullableNumber(`Share of ${what} passing DMARC (0..1); null without messages`);
const NEXT_CURSOR: ApiPropertyOptions = {
  type: String,
  nullable: true,
  description: 'Pass as cursor= for the next page; null on the last page',
};

export class PublishedPolicySchema {
  @ApiProperty() domain!: string;
  @ApiProperty({ description: 'p= as the reporter saw it' }) p!: string;
  @ApiProperty(nullableString()) sp!: string | null;
  @ApiProperty({ type: 'integer', nullable: true }) pct!: number | null;
  @ApiProperty(nullableString()) adkim!: string | null;
  @ApiProperty(nullableString()) aspf!: string | null;
}

export class DailyDmarc {
  @ApiProperty({ format: 'date', example: '2026-06-01' }) date!: string;
  @ApiProperty({ type: 'integer' }) messages!: number;
  @ApiProperty({ type: 'integer' }) passing!: number;
  @ApiProperty(RATE('the day’s messages')) pass_rate!: number | null;
}

export class DmarcSummarySchema {
  @ApiProperty() domain!: string;
  @ApiProperty({ type: 'integer' }) days!: number;
  @ApiProperty({ type: 'integer', description: 'Aggregate reports whose period began in the window' }) reports!: number;
  @ApiProperty({ type: 'integer' }) messages!: number;
  @ApiProperty({ type: 'integer' }) passing!: number;
  @ApiProperty(RATE('messages')) pass_rate!: number | null;
  @ApiProperty(
    nullableRef(() => PublishedPolicySchema, 'Policy published according to the newest report; null before any report'),
  )
  published_policy!: PublishedPolicySchema | null;
  @ApiProperty(COUNTS) disposition!: Record<string, number>;
  @ApiProperty(COUNTS) dkim!: Record<string, number>;
  @ApiProperty(COUNTS) spf!: Record<string, number>;
  @ApiProperty({ type: [DailyDmarc], description: 'Every UTC day of the window, oldest first' }) daily!: DailyDmarc[];
}

export class NetworkSchema {
  @ApiProperty({ example: 'AS15169', description: 'AS<number>, or Unknown' }) asn!: string;
  @ApiProperty({ example: 'GOOGLE' }) org!: string;
}

export class SendingServiceSchema {
  @ApiProperty({ example: 'google' }) id!: string;
  @ApiProperty({ example: 'Google Workspace / Gmail' }) name!: string;
  @ApiProperty({ type: 'integer' }) messages!: number;
  @ApiProperty({ type: 'integer' }) passing!: number;
  @ApiProperty(RATE('the service’s messages')) pass_rate!: number | null;
  @ApiProperty({ type: 'integer' }) source_ips!: number;
}
export class UnidentifiedSource {
  @ApiProperty() source_ip!: string;
  @ApiProperty(nullableString('Reverse DNS name, when looked up and found')) ptr!: string | null;
  @ApiProperty({ description: 'ISO country code, or Unknown' }) country!: string;
  @ApiProperty({ type: NetworkSchema }) network!: NetworkSchema;
  @ApiProperty({ type: 'integer' }) messages!: number;
  @ApiProperty({ type: 'integer' }) passing!: number;
  @ApiProperty(RATE('the address’s messages')) pass_rate!: number | null;
  @ApiProperty({
    type: [String],
    description: 'Envelope (SPF) domains, else header From domains, sent from this address',
  })
  sending_domains!: string[];
}
export class SendingDomainSchema {
  @ApiProperty() domain!: string;
  @ApiProperty({ type: 'integer' }) messages!: number;
  @ApiProperty({ type: 'integer' }) passing!: number;
  @ApiProperty(RATE('the domain’s messages')) pass_rate!: number | null;
}
export class DmarcSourcesSchema {
  @ApiProperty() domain!: string;
  @ApiProperty({ type: 'integer' }) days!: number;
  @ApiProperty({ type: 'integer' }) messages!: number;
  @ApiProperty({ type: 'integer' }) identified_messages!: number;
  @ApiProperty({ type: 'integer' }) unidentified_messages!: number;
  @ApiProperty({ type: [SendingServiceSchema], description: 'Known sending services, from reverse DNS and network' })
  services!: SendingServiceSchema[];
  @ApiProperty({ type: [UnidentifiedSource], description: 'The 100 largest unidentified source addresses' })
  unidentified_sources!: UnidentifiedSource[];
  @ApiProperty({ type: 'integer' }) unidentified_source_count!: number;
  @ApiProperty({ type: [SendingDomainSchema], description: 'The 100 largest sending domains of unidentified traffic' })
  unidentified_sending_domains!: SendingDomainSchema[];
}

export class AggregateReportSchema {
  @ApiProperty({ description: 'Report id for /dmarc/reports/{id}' }) id!: string;
  @ApiProperty() domain!: string;
  @ApiProperty() org_name!: string;
  @ApiProperty() email!: string;
  @ApiProperty({ description: 'The reporter’s own report id' }) report_id!: string;
  @ApiProperty({ format: 'date-time' }) begin!: string;
  @ApiProperty({ format: 'date-time' }) end!: string;
  @ApiProperty({ format: 'date-time' }) received_at!: string;
  @ApiProperty({ type: PublishedPolicySchema }) policy_published!: PublishedPolicySchema;
  @ApiProperty({ type: 'integer' }) record_count!: number;
  @ApiProperty({ type: 'integer' }) messages!: number;
  @ApiProperty({ type: 'integer' }) passing!: number;
  @ApiProperty(RATE('the report’s messages')) pass_rate!: number | null;
}
export class AggregateReportPage {
  @ApiProperty({ type: [AggregateReportSchema] }) data!: AggregateReportSchema[];
  @ApiProperty(NEXT_CURSOR) next_cursor!: string | null;
}

export class ReasonSchema {
  @ApiProperty() type!: string;
  @ApiPropertyOptional() comment?: string;
}
export class DkimAuthResult {
  @ApiProperty() domain!: string;
  @ApiProperty(nullableString()) selector!: string | null;
  @ApiProperty() result!: string;
}
export class SpfAuthResult {
  @ApiProperty() domain!: string;
  @ApiProperty(nullableString()) scope!: string | null;
  @ApiProperty() result!: string;
}
export class ReportRowSchema {
  @ApiProperty({ type: 'integer', description: 'Position of the record in the report' }) index!: number;
  @ApiProperty() source_ip!: string;
  @ApiProperty({ description: 'ISO country code, or Unknown' }) country!: string;
  @ApiProperty({ type: NetworkSchema }) network!: NetworkSchema;
  @ApiProperty({ type: 'integer' }) count!: number;
  @ApiProperty({ example: 'none' }) disposition!: string;
  @ApiProperty({ description: 'DMARC-aligned DKIM result' }) dkim!: string;
  @ApiProperty({ description: 'DMARC-aligned SPF result' }) spf!: string;
  @ApiProperty() header_from!: string;
  @ApiProperty(nullableString()) envelope_from!: string | null;
  @ApiProperty({ type: [ReasonSchema] }) reasons!: ReasonSchema[];
  @ApiProperty({ type: [DkimAuthResult] }) dkim_results!: DkimAuthResult[];
  @ApiProperty({ type: [SpfAuthResult] }) spf_results!: SpfAuthResult[];
}
export class ReportRowPage {
  @ApiProperty({ type: [ReportRowSchema] }) data!: ReportRowSchema[];
  @ApiProperty(NEXT_CURSOR) next_cursor!: string | null;
}
export class AggregateReportDetail extends AggregateReportSchema {
  @ApiProperty({ type: ReportRowPage, description: 'The report’s rows in report order, paged by limit and cursor' })
  rows!: ReportRowPage;
}

export class FailureReportSchema {
  @ApiProperty() id!: string;
  @ApiProperty() domain!: string;
  @ApiProperty() reporter!: string;
  @ApiProperty({ format: 'date-time' }) received_at!: string;
  @ApiProperty({ ...nullableString('Arrival time of the failed message, when reported'), format: 'date-time' })
  arrival_date!: string | null;
  @ApiProperty() feedback_type!: string;
  @ApiProperty(nullableString()) source_ip!: string | null;
  @ApiProperty(nullableString('ISO country code, or Unknown')) country!: string | null;
  @ApiProperty(nullableString()) auth_failure!: string | null;
  @ApiProperty(nullableString()) delivery_result!: string | null;
  @ApiProperty(nullableString()) authentication_results!: string | null;
  @ApiProperty(nullableString()) dkim_domain!: string | null;
  @ApiProperty(nullableString()) dkim_selector!: string | null;
  @ApiProperty(nullableString()) mail_from_domain!: string | null;
  @ApiProperty(nullableString()) rcpt_domain!: string | null;
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: 'Only for keys with the failure-report-subjects setting (and the dashboard)',
  })
  subject?: string | null;
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: 'Full mail-from address; only for keys with the failure-report-subjects setting (and the dashboard)',
  })
  mail_from?: string | null;
}
export class FailureReportPage {
  @ApiProperty({ type: [FailureReportSchema] }) data!: FailureReportSchema[];
  @ApiProperty(NEXT_CURSOR) next_cursor!: string | null;
}

export class TlsFailureType {
  @ApiProperty({ example: 'certificate-expired' }) result_type!: string;
  @ApiProperty({ type: 'integer' }) failed_sessions!: number;
}
export class TlsFailingSender {
  @ApiProperty() sending_mta_ip!: string;
  @ApiProperty({ type: 'integer' }) failed_sessions!: number;
  @ApiProperty({ type: [String] }) result_types!: string[];
}
export class TlsPolicyType {
  @ApiProperty({ example: 'sts' }) policy_type!: string;
  @ApiProperty({ type: 'integer' }) sessions!: number;
}
export class DailyTls {
  @ApiProperty({ format: 'date' }) date!: string;
  @ApiProperty({ type: 'integer' }) successful_sessions!: number;
  @ApiProperty({ type: 'integer' }) failed_sessions!: number;
}
export class TlsSummarySchema {
  @ApiProperty() domain!: string;
  @ApiProperty({ type: 'integer' }) days!: number;
  @ApiProperty({ type: 'integer' }) reports!: number;
  @ApiProperty({ type: 'integer' }) successful_sessions!: number;
  @ApiProperty({ type: 'integer' }) failed_sessions!: number;
  @ApiProperty(nullableNumber('Share of sessions that succeeded (0..1); null without sessions')) success_rate!:
    number | null;
  @ApiProperty({ type: [TlsFailureType] }) failure_types!: TlsFailureType[];
  @ApiProperty({ type: [TlsFailingSender], description: 'The 100 sending MTAs with the most failed sessions' })
  failing_senders!: TlsFailingSender[];
  @ApiProperty({ type: [TlsPolicyType] }) policy_types!: TlsPolicyType[];
  @ApiProperty({ type: [DailyTls], description: 'Every UTC day of the window, oldest first' }) daily!: DailyTls[];
}
