import { ApiProperty, ApiPropertyOptions, getSchemaPath } from '@nestjs/swagger';
import { EVENT_LOG_TYPES } from '../domain/event-log';

/**
 * Response bodies of the email-auth API as OpenAPI schemas (GET /api/v1/openapi.json). They
 * describe what the read service returns; the e2e spec validates real responses against
 * the published document, so a drift between the two fails there.
 */
/** OpenAPI 3.0: a nullable enum lists null among its values. */
/** A nullable object (OpenAPI 3.1): the referenced schema or JSON null; `$ref` takes no siblings. */
export const nullableRef = (model: () => new (...args: never[]) => unknown, description?: string): ApiPropertyOptions =>
  ({ oneOf: [{ $ref: getSchemaPath(model()) }, { type: 'null' }], description }) as unknown as ApiPropertyOptions;

const STATES = ['missing', 'partial', 'enforced'];
const POLICIES = ['none', 'quarantine', 'reject'];
const STAGES = ['monitoring', 'quarantine_partial', 'quarantine_full', 'reject_partial', 'reject_full'];

export class ErrorDetail {
  @ApiProperty({ example: 'domain_not_found' }) code!: string;
  @ApiProperty({ example: 'No Email Authentication domain by that name on this key.' }) message!: string;
}
export class ErrorBody {
  @ApiProperty({ type: ErrorDetail }) error!: ErrorDetail;
}

export class ComplianceSchema {
  @ApiProperty({ minimum: 0, maximum: 100, type: 'integer' }) score!: number;
  @ApiProperty({ enum: STATES }) dmarc!: string;
  @ApiProperty({ enum: STATES }) spf!: string;
  @ApiProperty({ enum: STATES }) dkim!: string;
  @ApiProperty({ enum: STATES }) bimi!: string;
  @ApiProperty({ enum: STATES }) mta_sts!: string;
  @ApiProperty({ enum: STATES }) tls_rpt!: string;
}

export class DomainSummary {
  @ApiProperty({ example: 'example.com' }) domain!: string;
  @ApiProperty({ enum: ['active', 'parked'], description: 'parked: the SPF record authorizes no sender (v=spf1 -all)' })
  status!: string;
  @ApiProperty({
    enum: ['delegated', 'records_only', null],
    nullable: true,
    description:
      'delegated: the zone is served by our name servers; records_only: verified by TXT, records published elsewhere',
  })
  hosting_mode!: string | null;
  @ApiProperty({ type: ComplianceSchema }) compliance!: ComplianceSchema;
}
export class DomainList {
  @ApiProperty({ type: [DomainSummary] }) data!: DomainSummary[];
}

export class LiveRecordSchema {
  @ApiProperty({ example: '_dmarc.example.com' }) name!: string;
  @ApiProperty({ enum: ['TXT'] }) type!: string;
  @ApiProperty({ description: 'The text the record must hold' }) value!: string;
  @ApiProperty({ description: 'Whether VERIFY_RESOLVER answers exactly this text at the name now' }) live!: boolean;
  @ApiProperty({ type: [String], description: 'TXT texts of the same family (version tag) found at the name' })
  found!: string[];
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Resolver error code (e.g. ENODATA) when the lookup failed',
  })
  error!: string | null;
}
export class DomainDetail extends DomainSummary {
  @ApiProperty({ type: [LiveRecordSchema] }) records!: LiveRecordSchema[];
  @ApiProperty() all_live!: boolean;
}

export class WizardSchema {
  @ApiProperty({ enum: STAGES }) stage!: string;
  @ApiProperty({ type: 'integer' }) days_at_stage!: number;
  @ApiProperty({ type: 'integer' }) recommended_min_days!: number;
  @ApiProperty({ type: 'integer' }) messages_at_stage!: number;
  @ApiProperty() pass_rate_at_stage!: number;
  @ApiProperty({ enum: ['ready_advance', 'investigate', 'keep_monitoring', 'need_more_data', 'full_enforcement'] })
  recommendation!: string;
  @ApiProperty() reason!: string;
  @ApiProperty({ enum: [...STAGES, null], nullable: true }) next_stage!: string | null;
  @ApiProperty() ready_to_advance!: boolean;
  @ApiProperty({ enum: ['insufficient_data', 'low_pass_rate', 'min_days_not_met'], isArray: true }) blockers!: string[];
}
export class PolicySchema {
  @ApiProperty() domain!: string;
  @ApiProperty({ enum: [...POLICIES, null], nullable: true }) policy!: string | null;
  @ApiProperty({ enum: [...POLICIES, null], nullable: true }) subdomain_policy!: string | null;
  @ApiProperty({ type: 'integer', nullable: true }) percentage!: number | null;
  @ApiProperty({ type: String, nullable: true, description: 'The _dmarc TXT text' }) record!: string | null;
  @ApiProperty(nullableRef(() => WizardSchema, 'null until the DMARC wizard is opened')) wizard!: WizardSchema | null;
}

export class SpfSchema {
  @ApiProperty() record!: string;
  @ApiProperty({ type: [String] }) include!: string[];
  @ApiProperty({ type: [String] }) ip4!: string[];
  @ApiProperty({ type: [String] }) ip6!: string[];
  @ApiProperty({
    enum: ['-all', '~all', '?all'],
    nullable: true,
    description: 'null when the record ends in redirect= instead',
  })
  all!: string | null;
  @ApiProperty({ type: 'integer', nullable: true }) dns_lookups!: number | null;
}
export class DkimSenderKey {
  @ApiProperty() selector!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ enum: ['rsa', 'ed25519'] }) key_type!: string;
  @ApiProperty({ type: 'integer' }) key_bits!: number;
  @ApiProperty({ description: 'Base64 DER SubjectPublicKeyInfo (public value only)' }) public_key!: string;
  @ApiProperty() created_at!: string;
}
export class SendersSchema {
  @ApiProperty() domain!: string;
  @ApiProperty(nullableRef(() => SpfSchema, 'null when no SPF is configured')) spf!: SpfSchema | null;
  @ApiProperty({ type: [DkimSenderKey] }) dkim!: DkimSenderKey[];
}

export class EventSchema {
  @ApiProperty() id!: string;
  @ApiProperty({ enum: EVENT_LOG_TYPES }) type!: string;
  @ApiProperty({ format: 'date-time' }) occurred_at!: string;
  @ApiProperty() domain!: string;
  @ApiProperty({ enum: ['info', 'warning', 'critical'] }) severity!: string;
  @ApiProperty() title!: string;
  @ApiProperty({ type: 'object', additionalProperties: true }) data!: Record<string, unknown>;
}
export class EventPage {
  @ApiProperty({ type: [EventSchema] }) data!: EventSchema[];
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Pass as cursor= for the next page; null on the last page',
  })
  next_cursor!: string | null;
}
