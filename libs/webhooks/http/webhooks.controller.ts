import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import { actorOf, ClientIp, CurrentPrincipal, Principal } from '../../auth/principal';
import { EventMetadata } from '../../eventstore/event-store.port';
import { parseLimit, parseOptionalString } from '../../shared/http/paging';
import { WEBHOOK_EVENT_TYPES } from '../domain/event-types';
import { CommandBus } from '@nestjs/cqrs';
import {
  CreateWebhook,
  DeleteWebhook,
  RedeliverWebhook,
  TestWebhook,
  UpdateWebhook,
} from '../application/webhook.commands';
import { WebhookQueries } from '../application/webhook.queries';
import { CreateWebhookDto, UpdateWebhookDto } from './webhooks.dto';

const ERROR_SCHEMA = {
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
const NULLABLE = (schema: object) => ({ anyOf: [schema, { type: 'null' }] });
const WEBHOOK_SCHEMA = {
  type: 'object',
  required: ['id', 'url', 'event_types', 'description', 'enabled', 'disabled_reason', 'created_at'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    url: { type: 'string' },
    event_types: { type: 'array', items: { type: 'string', enum: ['*', ...WEBHOOK_EVENT_TYPES] } },
    description: NULLABLE({ type: 'string' }),
    enabled: { type: 'boolean' },
    disabled_reason: NULLABLE({ type: 'string' }),
    created_at: { type: 'string', format: 'date-time' },
  },
};
const CREATED_SCHEMA = {
  ...WEBHOOK_SCHEMA,
  required: [...WEBHOOK_SCHEMA.required, 'secret'],
  properties: {
    ...WEBHOOK_SCHEMA.properties,
    secret: { type: 'string', description: 'whsec_ + base64 of 32 bytes: shown once, here' },
  },
};
const DELIVERY_SCHEMA = {
  type: 'object',
  required: [
    'id',
    'event_id',
    'event_type',
    'attempt',
    'status',
    'response_status',
    'duration_ms',
    'attempted_at',
    'next_attempt_at',
  ],
  properties: {
    id: { type: 'string' },
    event_id: { type: 'string', description: 'The webhook-id header: the underlying event’s id' },
    event_type: { type: 'string' },
    attempt: { type: 'integer', minimum: 1 },
    status: { type: 'string', enum: ['pending', 'succeeded', 'failed'] },
    response_status: NULLABLE({ type: 'integer' }),
    duration_ms: NULLABLE({ type: 'integer' }),
    attempted_at: NULLABLE({ type: 'string', format: 'date-time' }),
    next_attempt_at: NULLABLE({ type: 'string', format: 'date-time' }),
  },
};
const FORBIDDEN = { status: 403, description: 'plan_required: "Webhooks require Pro or Elite"', schema: ERROR_SCHEMA };

const metadataOf = (p: Principal, ip: string): EventMetadata => ({
  actor: actorOf(p),
  account_id: p.accountId,
  source_ip: ip,
});

/** Signed webhooks (contract §19): endpoints, their delivery log, redelivery and test sends. Pro and Elite. */
@ApiTags('webhooks')
@Controller('webhooks')
export class WebhooksController {
  constructor(
    private readonly commands: CommandBus,
    private readonly webhooks: WebhookQueries,
  ) {}

  @Post()
  @ApiOperation({ summary: 'Register an endpoint; the answer carries its signing secret, shown this once' })
  @ApiResponse({ status: 201, description: 'The webhook with `secret`', schema: CREATED_SCHEMA })
  @ApiResponse({
    status: 400,
    description: 'validation_failed: URL invalid, not https, or resolving to a private address; unknown event type',
    schema: ERROR_SCHEMA,
  })
  @ApiResponse({
    status: 403,
    description: 'plan_required (Free, Plus) or limit_reached (Pro 5, Elite 20 endpoints)',
    schema: ERROR_SCHEMA,
  })
  create(@CurrentPrincipal() p: Principal, @Body() body: CreateWebhookDto, @ClientIp() ip: string) {
    return this.commands.execute(new CreateWebhook(p.accountId, body, metadataOf(p, ip)));
  }

  @Get()
  @ApiOperation({ summary: 'The account’s endpoints' })
  @ApiResponse({
    status: 200,
    description: '{webhooks}',
    schema: {
      type: 'object',
      required: ['webhooks'],
      properties: { webhooks: { type: 'array', items: WEBHOOK_SCHEMA } },
    },
  })
  @ApiResponse(FORBIDDEN)
  list(@CurrentPrincipal() p: Principal) {
    return this.webhooks.list(p.accountId);
  }

  @Get(':id')
  @ApiOperation({ summary: 'One endpoint' })
  @ApiResponse({ status: 200, description: 'The webhook', schema: WEBHOOK_SCHEMA })
  get(@CurrentPrincipal() p: Principal, @Param('id') id: string) {
    return this.webhooks.get(p.accountId, id);
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Change the URL, event types, description, or switch the endpoint on or off' })
  @ApiResponse({ status: 200, description: 'The webhook', schema: WEBHOOK_SCHEMA })
  update(
    @CurrentPrincipal() p: Principal,
    @Param('id') id: string,
    @Body() body: UpdateWebhookDto,
    @ClientIp() ip: string,
  ) {
    return this.commands.execute(new UpdateWebhook(p.accountId, id, body, metadataOf(p, ip)));
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete the endpoint; nothing more is sent to it' })
  @ApiResponse({ status: 204, description: 'Deleted' })
  async remove(@CurrentPrincipal() p: Principal, @Param('id') id: string, @ClientIp() ip: string) {
    await this.commands.execute(new DeleteWebhook(p.accountId, id, metadataOf(p, ip)));
  }

  @Get(':id/deliveries')
  @ApiOperation({ summary: 'The delivery log: one row per attempt, newest first' })
  @ApiQuery({ name: 'cursor', required: false })
  @ApiQuery({ name: 'limit', required: false, description: '1–100, default 50' })
  @ApiQuery({ name: 'status', required: false, enum: ['pending', 'succeeded', 'failed'] })
  @ApiResponse({
    status: 200,
    description: '{data, next_cursor}',
    schema: {
      type: 'object',
      required: ['data', 'next_cursor'],
      properties: { data: { type: 'array', items: DELIVERY_SCHEMA }, next_cursor: NULLABLE({ type: 'string' }) },
    },
  })
  deliveries(@CurrentPrincipal() p: Principal, @Param('id') id: string, @Query() query: Record<string, unknown>) {
    return this.webhooks.deliveries(p.accountId, id, {
      cursor: parseOptionalString(query.cursor, 'cursor'),
      limit: parseLimit(query.limit, 50),
      status: parseOptionalString(query.status, 'status'),
    });
  }

  @Post(':id/deliveries/:delivery/redeliver')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Send the delivery’s event again, as its next attempt, behind what the endpoint has queued',
  })
  @ApiResponse({ status: 202, description: 'Queued' })
  @ApiResponse({ status: 409, description: 'webhook_disabled', schema: ERROR_SCHEMA })
  async redeliver(
    @CurrentPrincipal() p: Principal,
    @Param('id') id: string,
    @Param('delivery') delivery: string,
    @ClientIp() ip: string,
  ) {
    await this.commands.execute(new RedeliverWebhook(p.accountId, id, delivery, metadataOf(p, ip)));
    return { queued: true };
  }

  @Post(':id/test')
  @HttpCode(202)
  @ApiOperation({ summary: 'Send webhook.test to the endpoint, whatever its event types' })
  @ApiResponse({
    status: 202,
    description: '{event_id}: the test event’s id (its webhook-id)',
    schema: { type: 'object', properties: { event_id: { type: 'string' } } },
  })
  @ApiResponse({ status: 409, description: 'webhook_disabled: the endpoint is disabled', schema: ERROR_SCHEMA })
  test(@CurrentPrincipal() p: Principal, @Param('id') id: string, @ClientIp() ip: string) {
    return this.commands.execute(new TestWebhook(p.accountId, id, metadataOf(p, ip)));
  }
}
