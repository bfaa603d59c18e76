import { Controller, Get, Param, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiExtraModels, ApiParam, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Principal } from '../../auth/principal';
import { ReportReads, REPORT_NOT_FOUND } from '../application/report-reads';
import { ReportScopes } from '../application/report-scopes';
import { parseDays } from '../domain/cursor';
import {
  AggregateReportDetail,
  AggregateReportPage,
  DmarcSourcesSchema,
  DmarcSummarySchema,
  FailureReportPage,
  PublishedPolicySchema,
  TlsSummarySchema,
} from './email-auth-reports.schemas';
import { DaysQuery, NotFound, PageQueries, ReportEndpoint, ZoneParam, RowPageValidators } from './report-docs';
import { rowPageReply } from './row-page-reply';
import { listOf, pageOf, Query as Q } from './report-query';

const ZONE_404 = 'Zone not found (or not the account’s, or not in its Email Authentication add-on)';

/**
 * The dashboard's view of the same reports (contract §7: session or account key; the zone
 * must be the account's and in the add-on, 404 otherwise). Thin: the API's query service
 * with the account's scope; failure-report subjects are shown to the account owner.
 */
@Controller('email-auth/domains/:zone')
@ApiTags('email-auth-reports')
@ApiExtraModels(PublishedPolicySchema)
@ZoneParam()
export class EmailAuthReportsMirrorController {
  constructor(
    private readonly reads: ReportReads,
    private readonly scopes: ReportScopes,
  ) {}

  @Get('dmarc/summary')
  @ReportEndpoint('DMARC summary of the zone', DmarcSummarySchema, DaysQuery())
  @NotFound(ZONE_404)
  async summary(@CurrentPrincipal() p: Principal, @Param('zone') zone: string, @Query() q: Q) {
    const c = await this.scopes.forAccount(p);
    return this.reads.dmarcSummary(c.scope, c.zone(zone), parseDays(q.days));
  }

  @Get('dmarc/sources')
  @ReportEndpoint('Sending sources of the zone', DmarcSourcesSchema, DaysQuery())
  @NotFound(ZONE_404)
  async sources(@CurrentPrincipal() p: Principal, @Param('zone') zone: string, @Query() q: Q) {
    const c = await this.scopes.forAccount(p);
    return this.reads.dmarcSources(c.scope, c.zone(zone), parseDays(q.days));
  }

  @Get('dmarc/reports')
  @ReportEndpoint('Aggregate reports of the zone, newest first, paged', AggregateReportPage, DaysQuery(), PageQueries())
  @NotFound(ZONE_404)
  async reports(@CurrentPrincipal() p: Principal, @Param('zone') zone: string, @Query() q: Q) {
    const c = await this.scopes.forAccount(p);
    return this.reads.dmarcReports(c.scope, [c.zone(zone)], listOf(q));
  }

  @Get('dmarc/reports/:id')
  @ReportEndpoint('One aggregate report of the zone with its rows paged', AggregateReportDetail, PageQueries())
  @ApiParam({ name: 'id' })
  @NotFound(`${ZONE_404} / ${REPORT_NOT_FOUND}`)
  @RowPageValidators()
  async report(
    @CurrentPrincipal() p: Principal,
    @Param('zone') zone: string,
    @Param('id') id: string,
    @Query() q: Q,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const c = await this.scopes.forAccount(p);
    // Only the zone in the path: a report of another of the account's zones is not found here.
    const only = c.zone(zone);
    return rowPageReply(
      request,
      reply,
      await this.reads.dmarcReportPage({ accountId: c.scope.accountId, sees: (z) => z === only }, id, pageOf(q)),
    );
  }

  @Get('dmarc/forensic')
  @ReportEndpoint(
    'Failure reports of the zone, newest first, paged, with subjects and full mail-from',
    FailureReportPage,
    DaysQuery(),
    PageQueries(),
  )
  @NotFound(ZONE_404)
  async forensic(@CurrentPrincipal() p: Principal, @Param('zone') zone: string, @Query() q: Q) {
    const c = await this.scopes.forAccount(p);
    return this.reads.failureReports(c.scope, [c.zone(zone)], listOf(q));
  }

  @Get('tls-rpt/summary')
  @ReportEndpoint('TLS-RPT summary of the zone', TlsSummarySchema, DaysQuery())
  @NotFound(ZONE_404)
  async tls(@CurrentPrincipal() p: Principal, @Param('zone') zone: string, @Query() q: Q) {
    const c = await this.scopes.forAccount(p);
    return this.reads.tlsSummary(c.scope, c.zone(zone), parseDays(q.days));
  }
}
