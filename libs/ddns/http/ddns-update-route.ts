import type { INestApplicationContext } from '@nestjs/common';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { answerError } from '../../shared/http/error.filter';
import { LOGGER, Logger } from '../../shared/logger';
import { DdnsController, Protocol } from './ddns.controller';

/** The update routes (Fastify's spelling of DdnsController's paths) and the protocol each answers in. */
const UPDATE_ROUTES = new Map<string, Protocol>([
  ['/domains/nic/update', 'dyndns2'],
  ['/domains/dyndns/update', 'dyndns2'],
  ['/domains/v2/update', 'v2'],
]);

/**
 * Serves the DDNS update routes (GET and POST) without Nest's per-request pipeline:
 * Fastify calls this handler in place of the one Nest registers (replaced as the route is
 * added, so it must be installed before `app.init()`), as the report-row route does
 * (decision 0048). For these routes that pipeline did nothing but cost: the global
 * AuthGuard lets `@Public()` routes through, no interceptor applies, the validation pipe
 * skips `@Req()`/`@Res()` parameters and `answer` catches every failure itself; yet it
 * made ~20 promises per request (guard, interceptor chain, parameter resolution under a
 * `Promise.all`) on the busiest write (decision 0126). Fastify's hooks (request id,
 * security headers, the explicit origin of the route's config, metrics, request log) run
 * as for every route. The controller's methods stay: they are what a Nest-only setup
 * serves (HEAD, which Fastify adds for each GET, still goes through them).
 */
export function installDdnsUpdateRoutes(fastify: FastifyInstance, app: INestApplicationContext): void {
  let controller: DdnsController;
  try {
    controller = app.get(DdnsController, { strict: false });
  } catch {
    // A process composed without the DDNS module has no such routes.
    return;
  }
  const logger = app.get<Logger>(LOGGER, { strict: false });
  fastify.addHook('onRoute', (route) => {
    const protocol = UPDATE_ROUTES.get(route.url);
    if (protocol === undefined || (route.method !== 'GET' && route.method !== 'POST')) return;
    route.handler = async function ddnsUpdate(request: FastifyRequest, reply: FastifyReply) {
      try {
        await controller.answer(protocol, request, reply);
      } catch (e) {
        answerError(reply, e, logger, request.id);
      }
      return reply;
    };
  });
}
