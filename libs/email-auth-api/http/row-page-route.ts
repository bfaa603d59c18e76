import type { INestApplicationContext } from '@nestjs/common';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Principal } from '../../auth/principal';
import { answerError } from '../../shared/http/error.filter';
import { LOGGER, Logger } from '../../shared/logger';
import { ReportReads } from '../application/report-reads';
import { ReportScopes } from '../application/report-scopes';
import { EmailAuthApiGuard } from './email-auth-api.guard';
import { pageOf, Query } from './report-query';
import { rowPageReply } from './row-page-reply';

/** The API's busiest route (Fastify's spelling of EmailAuthReportsController.report's path). */
export const ROW_PAGE_ROUTE = '/api/v1/email-auth/dmarc/reports/:id';

/** One report-row page for an admitted key: what the controller method and the direct route both answer. */
export async function answerRowPage(
  reads: ReportReads,
  scopes: ReportScopes,
  principal: Principal,
  id: string,
  query: Query,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<Buffer | undefined> {
  return rowPageReply(request, reply, await reads.dmarcReportPage(scopes.keyAccess(principal), id, pageOf(query)));
}

/**
 * Serves ROW_PAGE_ROUTE without Nest's per-request pipeline: Fastify calls this handler
 * in place of the one Nest registers (replaced as the route is added, so it must be
 * installed before `app.init()`). It runs what that pipeline ran for this route, through
 * the same code: the API guard's checks (`admit`: user agent, key, scope, tier, rate
 * limit and its headers, key use), the controller's answer (`answerRowPage`) and the
 * global filter's error body (`answerError`). The global AuthGuard lets email-auth routes
 * through, the route has no interceptor, and the validation pipe skips its untyped query,
 * so nothing else ran. Fastify's hooks (request id, security headers, origin, metrics,
 * request log) run as for every route. The controller method stays: it documents the
 * route in the OpenAPI document and is what a Nest-only setup would serve.
 * Measured worthwhile: see docs/decisions/0048-row-page-cache-and-route.md.
 */
export function installRowPageRoute(fastify: FastifyInstance, app: INestApplicationContext): void {
  const guard = app.get(EmailAuthApiGuard, { strict: false });
  const reads = app.get(ReportReads, { strict: false });
  const scopes = app.get(ReportScopes, { strict: false });
  const logger = app.get<Logger>(LOGGER, { strict: false });
  fastify.addHook('onRoute', (route) => {
    if (route.url !== ROW_PAGE_ROUTE || route.method !== 'GET') return;
    route.handler = async function rowPage(request: FastifyRequest, reply: FastifyReply) {
      try {
        const principal = await guard.admit(request.headers, reply);
        (request as FastifyRequest & { principal?: Principal }).principal = principal;
        const { id } = request.params as { id: string };
        return reply.send(await answerRowPage(reads, scopes, principal, id, request.query as Query, request, reply));
      } catch (e) {
        answerError(reply, e, logger, request.id);
        return reply;
      }
    };
  });
}
