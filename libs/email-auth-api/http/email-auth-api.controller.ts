import { Controller, Get, Param, Query, UseGuards } from '@nestjs/common';
import { CurrentPrincipal, EmailAuthRead, Principal } from '../../auth/principal';
import { validationFailed } from '../../shared/errors';
import { parseLimit } from '../../shared/http/paging';
import { EmailAuthReads } from '../application/email-auth-reads';
import { decodeCursor, parseDays } from '../domain/cursor';
import { EVENT_LOG_TYPES, EventLogType } from '../domain/event-log';
import { EmailAuthApiGuard } from './email-auth-api.guard';

/** Contract §9: default page size 50, at most 100. */
export const DEFAULT_LIMIT = 50;

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;

function parseSince(raw: unknown): string | null {
  if (raw === undefined || raw === '') return null;
  if (typeof raw !== 'string' || !ISO_UTC.test(raw) || Number.isNaN(Date.parse(raw))) {
    throw validationFailed('since must be an ISO 8601 UTC time such as 2026-01-31T00:00:00Z');
  }
  return new Date(raw).toISOString();
}

function parseTypes(raw: unknown): EventLogType[] {
  if (raw === undefined) return [];
  const values = Array.isArray(raw) ? raw : [raw];
  for (const v of values) {
    if (!EVENT_LOG_TYPES.includes(v as EventLogType)) throw validationFailed(`type must be one of ${EVENT_LOG_TYPES.join(', ')}`);
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
@EmailAuthRead()
@UseGuards(EmailAuthApiGuard)
export class EmailAuthApiController {
  constructor(private readonly reads: EmailAuthReads) {}

  @Get('domains')
  domains(@CurrentPrincipal() p: Principal) {
    return this.reads.domains(p);
  }

  @Get('domains/:domain')
  domain(@CurrentPrincipal() p: Principal, @Param('domain') domain: string) {
    return this.reads.domain(p, domain);
  }

  @Get('dmarc/policy')
  policy(@CurrentPrincipal() p: Principal, @Query('domain') domain: unknown) {
    return this.reads.policy(p, oneString(domain, 'domain'));
  }

  @Get('senders')
  senders(@CurrentPrincipal() p: Principal, @Query('domain') domain: unknown) {
    return this.reads.senders(p, oneString(domain, 'domain'));
  }

  @Get('events')
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
