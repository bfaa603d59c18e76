import { Controller, Get, Query, Res } from '@nestjs/common';
import { ApiOperation, ApiProduces, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Readable } from 'node:stream';
import { CurrentPrincipal, Principal } from '../../auth/principal';
import { auditExportChunks, AuditExportQueries } from '../application/audit-export';
import { AUDIT_CSV_COLUMNS } from '../domain/audit-chain';
import { parseAuditExportQuery } from './audit-export.dto';
import { EXPORT_ENTRY_PROPERTIES } from './audit.schemas';

/** `GET /account/audit/export` (contract §19): the account's audit entries with their hash chain, streamed. */
@ApiTags('account')
@Controller('account/audit')
export class AuditExportController {
  constructor(private readonly queries: AuditExportQueries) {}

  @Get('export')
  @ApiOperation({
    summary: 'Export the account’s audit entries, oldest first, with their hash chain (streamed)',
    description:
      'Each entry as GET /account/audit gives it plus `prev_hash` and `hash`. The chain runs over the account’s ' +
      'whole life, so an export of any window ' +
      'links from the entry before it; `npm run cli -- audit:verify <file>` checks a file against the store. ' +
      `CSV columns: ${AUDIT_CSV_COLUMNS.join(', ')} (\`data\` as JSON text; \`actor_type\`/\`actor_id\` split ` +
      `\`actor\` at its first colon, \`key\` named \`api_key\`).`,
  })
  @ApiQuery({
    name: 'from',
    required: false,
    description: 'Inclusive: ISO 8601 date (UTC midnight) or date-time with Z or an offset',
  })
  @ApiQuery({ name: 'to', required: false, description: 'Exclusive, same form; not before `from`' })
  @ApiQuery({ name: 'format', required: false, enum: ['jsonl', 'csv'], description: 'Default jsonl' })
  @ApiProduces('application/x-ndjson', 'text/csv')
  @ApiResponse({
    status: 200,
    description: 'JSON Lines (one entry per line) or RFC 4180 CSV with a header, streamed',
    content: {
      'application/x-ndjson': {
        schema: {
          type: 'object',
          properties: EXPORT_ENTRY_PROPERTIES,
          required: Object.keys(EXPORT_ENTRY_PROPERTIES),
        },
      },
      'text/csv': { schema: { type: 'string', description: `Header: ${AUDIT_CSV_COLUMNS.join(',')}` } },
    },
  })
  export(@CurrentPrincipal() p: Principal, @Query() query: Record<string, unknown>, @Res() reply: FastifyReply) {
    const { format, window } = parseAuditExportQuery(query);
    const name =
      `audit-${p.accountId}${window.from ? `-from-${window.from}` : ''}${window.to ? `-to-${window.to}` : ''}.${format}`.replace(
        /:/g,
        '',
      );
    // One page waiting at most: the next is read from the store only once the socket has taken this one.
    const body = Readable.from(auditExportChunks(this.queries.pages(p.accountId, window), format), {
      highWaterMark: 1,
    });
    return reply
      .header('Content-Type', format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8')
      .header('Content-Disposition', `attachment; filename="${name}"`)
      .header('Cache-Control', 'no-store')
      .send(body);
  }
}
