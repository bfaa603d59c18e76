import { Controller, HttpCode, Post, Req } from '@nestjs/common';
import { AdminOnly, Public } from '../../auth/principal';
import { DMARC_FAILURE_REPORTS } from '../../../projections/dmarc-failure-reports.projection';
import { DMARC_REPORTS } from '../../../projections/dmarc-reports.projection';
import { TLS_REPORTS } from '../../../projections/tls-reports.projection';
import { ProjectionEngine } from '../../projection-engine/projection-engine';
import { ReadModel } from '../../projection-engine/read-model';
import { Doc } from '../../readstore/read-store.port';
import { ReportSource } from '../domain/report.events';
import { IngestResult, ReportIngestion } from '../application/report-ingestion';
import { ParseHints } from '../application/report-parser';

interface RawRequest {
  id: string;
  body: unknown;
  headers: Record<string, string | string[] | undefined>;
}

/** The read model each kind of report feeds; the answer waits for it so a client reads what it just sent. */
const READ_MODEL_OF: Record<IngestResult['kind'], ReadModel<Doc>> = {
  aggregate: DMARC_REPORTS,
  failure: DMARC_FAILURE_REPORTS,
  tls: TLS_REPORTS,
};

const bodyBytes = (body: unknown): Buffer => {
  if (Buffer.isBuffer(body)) return body;
  if (body === undefined || body === null || body === '') return Buffer.alloc(0);
  // application/json went through Fastify's JSON parser; the pipeline reads bytes.
  return Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
};

const view = (r: IngestResult) => ({
  kind: r.kind,
  id: r.report_key,
  zone: r.zone,
  reporter: r.reporter,
  report_id: r.report_id,
  record_count: r.record_count,
});

/** HTTPS TLS-RPT (RFC 8460 §3) and the operators' report import, both into the one pipeline. */
@Controller()
export class ReportsController {
  constructor(
    private readonly ingestion: ReportIngestion,
    private readonly projections: ProjectionEngine,
  ) {}

  private async run(req: RawRequest, source: ReportSource, hints: ParseHints, only?: IngestResult['kind']) {
    const result = await this.ingestion.ingest(bodyBytes(req.body), { source, hints, only, correlationId: req.id });
    await this.projections.waitFor(result.position, 5000, [READ_MODEL_OF[result.kind].projection]);
    return result;
  }

  @Public()
  @Post('reports/tls-rpt')
  @HttpCode(201)
  async tlsReport(@Req() req: RawRequest) {
    return view(
      await this.run(req, 'https', { expect: 'tls', contentType: String(req.headers['content-type'] ?? '') }, 'tls'),
    );
  }

  @AdminOnly()
  @Post('admin/reports')
  @HttpCode(201)
  async adminImport(@Req() req: RawRequest) {
    const source: ReportSource = req.headers['x-report-source'] === 'cli' ? 'cli' : 'admin';
    return view(await this.run(req, source, { contentType: String(req.headers['content-type'] ?? '') }));
  }
}
