import { applyDecorators, Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ClientIp, CurrentPrincipal, Principal, actorOf } from '../../auth/principal';
import { LiveRecords } from '../application/live-records';
import { EventStreams } from '../../eventstore/event-streams';
import { notFound, validationFailed } from '../../shared/errors';
import { parseLimit } from '../../shared/http/paging';
import { EmailAuthCaller } from '../application/email-auth.commands';
import { EmailAuthQueries } from '../application/email-auth.queries';
import { emailAuthDecider, PROGRESSION_NOT_FOUND } from '../domain/email-auth.decider';
import { emailAuthStream } from '../domain/email-auth.events';
import { generatedRecords } from '../domain/records';
import { STAGES } from '../domain/stages';
import { nightlySeries, zoneEventLog } from '../domain/zone-history';

const callerOf = (p: Principal, ip: string): EmailAuthCaller => ({
  accountId: p.accountId,
  actor: actorOf(p),
  sourceIp: ip,
});

const ERROR = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: { code: { type: 'string' }, message: { type: 'string' } },
    },
  },
};
/** The answers every route here shares (contract §1, §7). */
const ACCESS_ERRORS = applyDecorators(
  ApiResponse({ status: 401, description: 'unauthorized', schema: ERROR }),
  ApiResponse({
    status: 403,
    description: 'addon_required: "DMARC management requires the Email Authentication add-on"',
    schema: ERROR,
  }),
);
const ZONE_NOT_FOUND = ApiResponse({
  status: 404,
  description: 'not_found: the zone is not the account’s',
  schema: ERROR,
});
const ZONE_PARAM = ApiParam({ name: 'zone', description: 'A zone in the account’s Email Authentication add-on' });

const LIVE_SCHEMA = {
  type: 'object',
  required: ['zone', 'records', 'all_live'],
  properties: {
    zone: { type: 'string' },
    all_live: { type: 'boolean' },
    records: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'type', 'value', 'live', 'found', 'error'],
        properties: {
          name: { type: 'string' },
          type: { type: 'string', enum: ['TXT'] },
          value: { type: 'string' },
          live: { type: 'boolean' },
          found: { type: 'array', items: { type: 'string' } },
          error: { anyOf: [{ type: 'string' }, { type: 'null' }] },
        },
      },
    },
  },
};
const EVENTS_SCHEMA = {
  type: 'object',
  required: ['zone', 'events'],
  properties: {
    zone: { type: 'string' },
    events: {
      type: 'array',
      items: {
        type: 'object',
        required: ['type', 'occurred_at', 'actor', 'data'],
        properties: {
          type: { type: 'string' },
          occurred_at: { type: 'string', format: 'date-time' },
          actor: { anyOf: [{ type: 'string' }, { type: 'null' }] },
          data: { type: 'object', additionalProperties: true, description: 'the event’s fields as stored' },
        },
      },
    },
  },
};
const NIGHTS_SCHEMA = {
  type: 'object',
  required: ['zone', 'nights'],
  properties: {
    zone: { type: 'string' },
    nights: {
      type: 'array',
      items: {
        type: 'object',
        required: ['night', 'stage', 'messages', 'passing', 'pass_rate', 'days_at_stage'],
        properties: {
          night: { type: 'string', format: 'date' },
          stage: { type: 'string', enum: STAGES.map((s) => s.name) },
          messages: { type: 'integer' },
          passing: { type: 'integer' },
          pass_rate: { type: 'number' },
          days_at_stage: { type: 'integer' },
        },
      },
    },
  },
};

/**
 * Session reads added for the dashboard's email-authentication screens
 * (docs/email-auth-dashboard-reads.md): whether each generated record is live in DNS, the
 * zone's event log, and the wizard's nightly figures. Same enrolment rules as the settings
 * endpoints (contract §7): the zone must be in the account's add-on.
 */
@ApiTags('email-auth')
@Controller('email-auth')
export class EmailAuthDashboardController {
  constructor(
    private readonly queries: EmailAuthQueries,
    private readonly live: LiveRecords,
    private readonly streams: EventStreams,
  ) {}

  /** The zone's stream, after the enrolment check (which also normalises the name). */
  private async stream(p: Principal, ip: string, zone: string) {
    const state = await this.queries.state(callerOf(p, ip), zone);
    const { events } = await this.streams.load(emailAuthStream(state.zone), emailAuthDecider);
    return { state, events };
  }

  @Get('domains/:zone/live')
  @ApiOperation({ summary: 'Each generated record and whether the world’s DNS (VERIFY_RESOLVER) answers it now' })
  @ZONE_PARAM
  @ApiOkResponse({ description: 'Records and liveness', schema: LIVE_SCHEMA })
  @ACCESS_ERRORS
  @ZONE_NOT_FOUND
  async liveRecords(@CurrentPrincipal() p: Principal, @Param('zone') zone: string, @ClientIp() ip: string) {
    const state = await this.queries.state(callerOf(p, ip), zone);
    const records = await this.live.check(state.zone, generatedRecords(state));
    return { zone: state.zone, records, all_live: records.every((r) => r.live) };
  }

  @Get('domains/:zone/events')
  @ApiOperation({ summary: 'The zone’s email-authentication events, newest first' })
  @ZONE_PARAM
  @ApiQuery({ name: 'limit', required: false, description: '1–100, default 50' })
  @ApiOkResponse({ description: 'Event log', schema: EVENTS_SCHEMA })
  @ApiResponse({ status: 400, description: 'validation_failed: limit out of range', schema: ERROR })
  @ACCESS_ERRORS
  @ZONE_NOT_FOUND
  async events(
    @CurrentPrincipal() p: Principal,
    @Param('zone') zone: string,
    @Query() query: Record<string, unknown>,
    @ClientIp() ip: string,
  ) {
    for (const key of Object.keys(query))
      if (key !== 'limit') throw validationFailed(`unknown query parameter: ${key}`);
    const limit = parseLimit(query.limit, 50);
    const { state, events } = await this.stream(p, ip, zone);
    return { zone: state.zone, events: zoneEventLog(events, p.accountId, limit) };
  }

  @Get('dmarc/wizard/:zone/nights')
  @ApiOperation({
    summary: 'The nightly job’s figures for the zone (messages, passing, pass rate, stage), oldest first',
  })
  @ZONE_PARAM
  @ApiOkResponse({ description: 'Nightly series', schema: NIGHTS_SCHEMA })
  @ACCESS_ERRORS
  @ApiResponse({
    status: 404,
    description: 'not_found: "DMARC progression not found", or the zone is not the account’s',
    schema: ERROR,
  })
  async nights(@CurrentPrincipal() p: Principal, @Param('zone') zone: string, @ClientIp() ip: string) {
    const { state, events } = await this.stream(p, ip, zone);
    if (!state.progression) throw notFound(PROGRESSION_NOT_FOUND);
    return { zone: state.zone, nights: nightlySeries(events, p.accountId) };
  }
}
