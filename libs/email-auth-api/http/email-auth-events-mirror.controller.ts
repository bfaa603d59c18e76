import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Principal } from '../../auth/principal';
import { parseLimit } from '../../shared/http/paging';
import { EmailAuthReads } from '../application/email-auth-reads';
import { ReportScopes } from '../application/report-scopes';
import { decodeCursor } from '../domain/cursor';
import { EVENT_LOG_TYPES } from '../domain/event-log';
import { DEFAULT_LIMIT, parseSince, parseTypes } from './email-auth-api.controller';
import { EventPage } from './email-auth-api.schemas';

/**
 * The dashboard's view of the email-auth event log (contract §7 authentication: session or
 * account key): the same entries as GET /api/v1/email-auth/events, over every zone of the
 * account's add-on, or one zone with `domain=` (404 when it is not one of them).
 */
@Controller('email-auth')
@ApiTags('email-auth-reports')
export class EmailAuthEventsMirrorController {
  constructor(
    private readonly reads: EmailAuthReads,
    private readonly scopes: ReportScopes,
  ) {}

  @Get('events')
  @ApiOperation({ summary: 'Email-auth event log of the account, newest first, paged' })
  @ApiQuery({ name: 'domain', required: false, description: 'One zone of the add-on' })
  @ApiQuery({ name: 'since', required: false, description: 'ISO 8601 UTC time; entries at or after it' })
  @ApiQuery({ name: 'type', required: false, isArray: true, enum: EVENT_LOG_TYPES, description: 'Repeatable' })
  @ApiQuery({ name: 'cursor', required: false })
  @ApiQuery({
    name: 'limit',
    required: false,
    schema: { type: 'integer', minimum: 1, maximum: 100, default: DEFAULT_LIMIT },
  })
  @ApiOkResponse({ type: EventPage })
  async events(@CurrentPrincipal() p: Principal, @Query() query: Record<string, unknown>) {
    const view = await this.scopes.accountView(p);
    const domain =
      typeof query.domain === 'string' && query.domain !== ''
        ? (await this.scopes.forAccount(p)).zone(query.domain)
        : null;
    return this.reads.events(domain ? { ...view, emailAuthDomains: [domain] } : view, {
      since: parseSince(query.since),
      types: parseTypes(query.type),
      cursor: decodeCursor(typeof query.cursor === 'string' ? query.cursor : undefined),
      limit: parseLimit(query.limit, DEFAULT_LIMIT),
    });
  }
}
