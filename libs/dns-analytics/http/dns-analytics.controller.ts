import { Controller, Get, Query, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Readable } from 'node:stream';
import { CurrentPrincipal, Principal } from '../../auth/principal';
import { validationFailed } from '../../shared/errors';
import { parseLimit, parseOptionalString } from '../../shared/http/paging';
import {
  DnsAnalyticsQueries,
  EXPORT_PLAN_MESSAGE,
  QUERIES_PLAN_MESSAGE,
  SUMMARY_PLAN_MESSAGE,
} from '../application/dns-analytics.queries';
import { exportChunks, ExportFormat } from '../application/export-format';
import { Window, WINDOWS } from '../domain/summary';

const DAY = 86_400_000;

/** Contract §1's error body. */
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

/** OpenAPI schema of GET /dns-analytics/volume (docs/dns-analytics-volume.md). */
const VOLUME_SCHEMA = {
  type: 'object',
  required: ['window', 'domain', 'bucket_seconds', 'points'],
  properties: {
    window: { type: 'string', enum: [...WINDOWS] },
    domain: {
      anyOf: [{ type: 'string' }, { type: 'null' }],
      description: 'The domain filter, or null for every domain of the account',
    },
    bucket_seconds: { type: 'integer', enum: [3600, 86400] },
    points: {
      type: 'array',
      items: {
        type: 'object',
        required: ['at', 'queries', 'errors'],
        properties: {
          at: { type: 'string', format: 'date-time' },
          queries: { type: 'integer' },
          errors: { type: 'integer' },
        },
      },
    },
  },
};
export const MAX_EXPORT_DAYS = 90;

/** Query parameters other than these are a client mistake worth saying so (contract §1: strict input). */
function onlyParams(query: Record<string, unknown>, allowed: string[]): void {
  for (const key of Object.keys(query))
    if (!allowed.includes(key)) throw validationFailed(`unknown query parameter: ${key}`);
}

function parseWindow(raw: unknown): Window {
  if (raw === undefined) return '24h';
  if (typeof raw !== 'string' || !(WINDOWS as readonly string[]).includes(raw))
    throw validationFailed(`window must be one of ${WINDOWS.join(', ')}`);
  return raw as Window;
}

function parseDay(raw: unknown, name: string): number {
  const m = typeof raw === 'string' ? /^(\d{4})-(\d{2})-(\d{2})$/.exec(raw) : null;
  const t = m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : NaN;
  if (!m || Number.isNaN(t) || new Date(t).toISOString().slice(0, 10) !== raw)
    throw validationFailed(`${name} must be a date YYYY-MM-DD`);
  return t;
}

/** DNS analytics (seed "DNS analytics", contract §12). */
@Controller('dns-analytics')
export class DnsAnalyticsController {
  constructor(private readonly queries: DnsAnalyticsQueries) {}

  @Get('summary')
  @ApiQuery({ name: 'window', required: false, enum: WINDOWS, description: 'The breakdowns’ window; default 24h' })
  @ApiQuery({ name: 'domain', required: false, description: 'One of the account’s zones or dynamic-DNS hosts' })
  async summary(@CurrentPrincipal() p: Principal, @Query() query: Record<string, unknown>) {
    await this.queries.requirePlan(p.accountId, ['pro', 'elite'], SUMMARY_PLAN_MESSAGE);
    onlyParams(query, ['domain', 'window']);
    const window = parseWindow(query.window);
    const filter = await this.queries.filterFor(p.accountId, parseOptionalString(query.domain, 'domain', 253));
    return this.queries.summary(filter, window);
  }

  /** Added for the dashboard's volume chart (docs/dns-analytics-volume.md). */
  @Get('volume')
  @ApiTags('dns-analytics')
  @ApiOperation({ summary: 'Query volume per hour (24h) or per UTC day (7d, 30d), oldest first, every slot present' })
  @ApiQuery({ name: 'window', required: false, enum: WINDOWS, description: 'Default 24h' })
  @ApiQuery({ name: 'domain', required: false, description: 'One of the account’s zones or dynamic-DNS hosts' })
  @ApiOkResponse({ description: 'The series', schema: VOLUME_SCHEMA })
  @ApiResponse({
    status: 400,
    description: 'validation_failed: a window other than 24h, 7d, 30d, or an unknown parameter',
    schema: ERROR_SCHEMA,
  })
  @ApiResponse({ status: 401, description: 'unauthorized', schema: ERROR_SCHEMA })
  @ApiResponse({
    status: 403,
    description: 'plan_required: "DNS Analytics requires Pro or Elite"',
    schema: ERROR_SCHEMA,
  })
  @ApiResponse({ status: 404, description: 'not_found: "Domain not found"', schema: ERROR_SCHEMA })
  async volume(@CurrentPrincipal() p: Principal, @Query() query: Record<string, unknown>) {
    await this.queries.requirePlan(p.accountId, ['pro', 'elite'], SUMMARY_PLAN_MESSAGE);
    onlyParams(query, ['domain', 'window']);
    const window = parseWindow(query.window);
    const filter = await this.queries.filterFor(p.accountId, parseOptionalString(query.domain, 'domain', 253));
    return this.queries.volume(filter, window);
  }

  @Get('queries')
  @ApiQuery({ name: 'limit', required: false, description: '10–100, default 50' })
  @ApiQuery({ name: 'domain', required: false, description: 'One of the account’s zones or dynamic-DNS hosts' })
  async recent(@CurrentPrincipal() p: Principal, @Query() query: Record<string, unknown>) {
    await this.queries.requirePlan(p.accountId, ['pro', 'elite'], QUERIES_PLAN_MESSAGE);
    onlyParams(query, ['domain', 'limit']);
    const limit = parseLimit(query.limit, 50, 10, 100);
    const filter = await this.queries.filterFor(p.accountId, parseOptionalString(query.domain, 'domain', 253));
    return this.queries.recent(filter, limit);
  }

  /** `start` and `end` are UTC days, both included; at most 90 days. */
  @Get('export')
  async export(@CurrentPrincipal() p: Principal, @Query() query: Record<string, unknown>, @Res() reply: FastifyReply) {
    await this.queries.requirePlan(p.accountId, ['elite'], EXPORT_PLAN_MESSAGE);
    onlyParams(query, ['domain', 'format', 'start', 'end']);
    const format = query.format;
    if (format !== 'csv' && format !== 'json') throw validationFailed('format must be csv or json');
    const start = parseDay(query.start, 'start');
    const end = parseDay(query.end, 'end');
    if (end < start) throw validationFailed('end must not be before start');
    if ((end - start) / DAY + 1 > MAX_EXPORT_DAYS)
      throw validationFailed(`the date range (start to end) must be at most ${MAX_EXPORT_DAYS} days`);
    const filter = await this.queries.filterFor(p.accountId, parseOptionalString(query.domain, 'domain', 253));
    const name = `dns-queries-${query.start}-to-${query.end}.${format}`;
    const body = Readable.from(exportChunks(this.queries.export(filter, start, end + DAY), format as ExportFormat));
    return reply
      .header('Content-Type', format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8')
      .header('Content-Disposition', `attachment; filename="${name}"`)
      .send(body);
  }
}
