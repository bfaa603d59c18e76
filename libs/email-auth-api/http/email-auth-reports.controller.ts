import { Controller, Get, Param, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiExtraModels, ApiParam } from '@nestjs/swagger';
import { CurrentPrincipal, Principal } from '../../auth/principal';
import { ReportReads, REPORT_NOT_FOUND } from '../application/report-reads';
import { ReportScopes } from '../application/report-scopes';
import { DOMAIN_NOT_FOUND } from '../application/visible-domains';
import { parseDays } from '../domain/cursor';
import { EmailAuthApi } from './email-auth-api.docs';
import {
  AggregateReportDetail,
  AggregateReportPage,
  DmarcSourcesSchema,
  DmarcSummarySchema,
  FailureReportPage,
  PublishedPolicySchema,
  TlsSummarySchema,
} from './email-auth-reports.schemas';
import { DaysQuery, domainQuery, NotFound, PageQueries, ReportEndpoint, RowPageValidators } from './report-docs';
import { answerRowPage } from './row-page-route';
import { listOf, optionalDomain, Query as Q, requiredDomain } from './report-query';

/**
 * The report endpoints of the read-only email-auth API (seed: Email-authentication read
 * API): DMARC summary, sources, aggregate reports and their rows, failure reports, TLS-RPT
 * summary. Same guard, rate limit and rules as the rest of /api/v1/email-auth.
 */
@Controller('api/v1/email-auth')
@EmailAuthApi()
@ApiExtraModels(PublishedPolicySchema)
export class EmailAuthReportsController {
  constructor(
    private readonly reads: ReportReads,
    private readonly scopes: ReportScopes,
  ) {}

  @Get('dmarc/summary')
  @ReportEndpoint(
    'DMARC messages, published policy, disposition, SPF and DKIM results, daily series',
    DmarcSummarySchema,
    domainQuery(true),
    DaysQuery(),
  )
  @NotFound(DOMAIN_NOT_FOUND)
  async summary(@CurrentPrincipal() p: Principal, @Query() q: Q) {
    const c = await this.scopes.forKey(p);
    return this.reads.dmarcSummary(c.scope, c.zone(requiredDomain(q.domain)), parseDays(q.days));
  }

  @Get('dmarc/sources')
  @ReportEndpoint(
    'Identified sending services, unidentified source IPs and sending domains, with pass rates',
    DmarcSourcesSchema,
    domainQuery(true),
    DaysQuery(),
  )
  @NotFound(DOMAIN_NOT_FOUND)
  async sources(@CurrentPrincipal() p: Principal, @Query() q: Q) {
    const c = await this.scopes.forKey(p);
    return this.reads.dmarcSources(c.scope, c.zone(requiredDomain(q.domain)), parseDays(q.days));
  }

  @Get('dmarc/reports')
  @ReportEndpoint(
    'Aggregate reports, newest first (by period start), paged',
    AggregateReportPage,
    domainQuery(false),
    DaysQuery(),
    PageQueries(),
  )
  @NotFound(DOMAIN_NOT_FOUND)
  async reports(@CurrentPrincipal() p: Principal, @Query() q: Q) {
    const c = await this.scopes.forKey(p);
    return this.reads.dmarcReports(c.scope, c.zones(optionalDomain(q.domain)), listOf(q));
  }

  @Get('dmarc/reports/:id')
  @ReportEndpoint(
    'One aggregate report with its rows (source IP, country, network, count, disposition, DKIM and SPF results), rows paged',
    AggregateReportDetail,
    PageQueries(),
  )
  @ApiParam({ name: 'id', description: 'id of a report from /dmarc/reports' })
  @NotFound(REPORT_NOT_FOUND)
  @RowPageValidators()
  async report(
    @CurrentPrincipal() p: Principal,
    @Param('id') id: string,
    @Query() q: Q,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return answerRowPage(this.reads, this.scopes, p, id, q, request, reply);
  }

  @Get('dmarc/forensic')
  @ReportEndpoint(
    'Failure reports, newest first (by arrival), paged; subject and full mail-from only for keys with the failure-report-subjects setting',
    FailureReportPage,
    domainQuery(false),
    DaysQuery(),
    PageQueries(),
  )
  @NotFound(DOMAIN_NOT_FOUND)
  async forensic(@CurrentPrincipal() p: Principal, @Query() q: Q) {
    const c = await this.scopes.forKey(p);
    return this.reads.failureReports(c.scope, c.zones(optionalDomain(q.domain)), listOf(q));
  }

  @Get('tls-rpt/summary')
  @ReportEndpoint(
    'TLS sessions succeeded and failed, failure types, failing senders, policy types, daily series',
    TlsSummarySchema,
    domainQuery(true),
    DaysQuery(),
  )
  @NotFound(DOMAIN_NOT_FOUND)
  async tls(@CurrentPrincipal() p: Principal, @Query() q: Q) {
    const c = await this.scopes.forKey(p);
    return this.reads.tlsSummary(c.scope, c.zone(requiredDomain(q.domain)), parseDays(q.days));
  }
}
