import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiExtraModels, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiParam, ApiQuery } from '@nestjs/swagger';
import { CurrentPrincipal, Principal } from '../../auth/principal';
import { validationFailed } from '../../shared/errors';
import { parseLimit } from '../../shared/http/paging';
import { EmailAuthReads } from '../application/email-auth-reads';
import { decodeCursor, parseDays } from '../domain/cursor';
import { EVENT_LOG_TYPES, EventLogType } from '../domain/event-log';
import { EmailAuthApi } from './email-auth-api.docs';
import { DEFAULT_LIMIT } from './report-query';
import {
  DomainDetail,
  DomainList,
  ErrorBody,
  EventPage,
  PolicySchema,
  SendersSchema,
  SpfSchema,
  WizardSchema,
} from './email-auth-api.schemas';

const DOMAIN_QUERY = ApiQuery({
  name: 'domain',
  required: true,
  description: 'A domain the key can see',
  example: 'example.com',
});
const NOT_FOUND = ApiNotFoundResponse({
  type: ErrorBody,
  description: 'No Email Authentication domain by that name on this key.',
});

/** Contract §9: default page size 50, at most 100 (shared with the report endpoints). */
export { DEFAULT_LIMIT };

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;

export function parseSince(raw: unknown): string | null {
  if (raw === undefined || raw === '') return null;
  if (typeof raw !== 'string' || !ISO_UTC.test(raw) || Number.isNaN(Date.parse(raw))) {
    throw validationFailed('since must be an ISO 8601 UTC time such as 2026-01-31T00:00:00Z');
  }
  return new Date(raw).toISOString();
}

export function parseTypes(raw: unknown): EventLogType[] {
  if (raw === undefined) return [];
  const values = Array.isArray(raw) ? raw : [raw];
  for (const v of values) {
    if (!EVENT_LOG_TYPES.includes(v as EventLogType))
      throw validationFailed(`type must be one of ${EVENT_LOG_TYPES.join(', ')}`);
  }
  return [...new Set(values as EventLogType[])];
}

function oneString(raw: unknown, name: string): string {
  if (typeof raw !== 'string' || raw === '') throw validationFailed(`${name} is required`);
  return raw;
}

/**
 * The read-only email-authentication API (seed: Email-authentication read API), all GET
 * under /api/v1/email-auth, authenticated by email_auth:read keys only.
 */
@Controller('api/v1/email-auth')
@EmailAuthApi()
@ApiExtraModels(WizardSchema, SpfSchema)
export class EmailAuthApiController {
  constructor(private readonly reads: EmailAuthReads) {}

  @Get('domains')
  @ApiOperation({ summary: 'Every domain the key can see, with its compliance' })
  @ApiOkResponse({ type: DomainList })
  domains(@CurrentPrincipal() p: Principal) {
    return this.reads.domains(p);
  }

  @Get('domains/:domain')
  @ApiOperation({ summary: 'One domain, with each needed record and whether it is live in DNS now' })
  @ApiParam({ name: 'domain', example: 'example.com' })
  @ApiOkResponse({ type: DomainDetail })
  @NOT_FOUND
  domain(@CurrentPrincipal() p: Principal, @Param('domain') domain: string) {
    return this.reads.domain(p, domain);
  }

  @Get('dmarc/policy')
  @ApiOperation({ summary: "Published DMARC policy and the wizard's stage, recommendation and blockers" })
  @DOMAIN_QUERY
  @ApiOkResponse({ type: PolicySchema })
  @NOT_FOUND
  policy(@CurrentPrincipal() p: Principal, @Query('domain') domain: unknown) {
    return this.reads.policy(p, oneString(domain, 'domain'));
  }

  @Get('senders')
  @ApiOperation({ summary: 'SPF configuration and senders, DKIM sender keys (public values only)' })
  @DOMAIN_QUERY
  @ApiOkResponse({ type: SendersSchema })
  @NOT_FOUND
  senders(@CurrentPrincipal() p: Principal, @Query('domain') domain: unknown) {
    return this.reads.senders(p, oneString(domain, 'domain'));
  }

  @Get('events')
  @ApiOperation({ summary: 'Event log, newest first, paged' })
  @ApiQuery({ name: 'since', required: false, description: 'ISO 8601 UTC time; entries at or after it' })
  @ApiQuery({ name: 'type', required: false, isArray: true, enum: EVENT_LOG_TYPES, description: 'Repeatable' })
  @ApiQuery({ name: 'cursor', required: false, description: 'next_cursor of the previous page' })
  @ApiQuery({
    name: 'limit',
    required: false,
    schema: { type: 'integer', minimum: 1, maximum: 100, default: DEFAULT_LIMIT },
  })
  @ApiQuery({ name: 'days', required: false, schema: { type: 'integer', minimum: 1, maximum: 1096, default: 30 } })
  @ApiOkResponse({ type: EventPage })
  events(@CurrentPrincipal() p: Principal, @Query() query: Record<string, unknown>) {
    // `days` bounds report queries; checked here too so every endpoint answers it alike.
    if (query.days !== undefined) parseDays(query.days);
    return this.reads.events(p, {
      since: parseSince(query.since),
      types: parseTypes(query.type),
      cursor: decodeCursor(typeof query.cursor === 'string' ? query.cursor : undefined),
      limit: parseLimit(query.limit, DEFAULT_LIMIT),
    });
  }
}
