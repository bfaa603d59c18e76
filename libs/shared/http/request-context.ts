import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { RouteConfig } from '@nestjs/platform-fastify';
import { CommandOrigin, openOrigin } from '../command-origin';
import { Logger } from '../logger';
import { Metrics } from '../metrics';

const EXPLICIT_ORIGIN = 'explicitOrigin';

/** A request as the request hook leaves it: with its command origin. */
export interface OriginCarrier {
  origin?: CommandOrigin;
}

/** The request's origin (correlation id, address, and the actor once authenticated). */
export const requestOrigin = (req: object): CommandOrigin => (req as OriginCarrier).origin ?? {};

/**
 * A route whose commands carry the request's origin themselves (`requestOrigin`), so it runs
 * without the async-context storage and its promise hooks (decision 0109). Only for routes
 * whose every appended event states its correlation id, actor and address.
 */
export const ExplicitOrigin = (): MethodDecorator => RouteConfig({ [EXPLICIT_ORIGIN]: true });

const VALID_REQUEST_ID = /^[\x21-\x7e]{1,128}$/;

/** A client's X-Request-Id when it is printable and at most 128 characters, else a new UUID. */
export const requestIdFor = (req: { headers: Record<string, string | string[] | undefined> }): string => {
  const sent = req.headers['x-request-id'];
  return typeof sent === 'string' && VALID_REQUEST_ID.test(sent) ? sent : randomUUID();
};

/**
 * Fastify-level plumbing every route shares: the request id header, the one-line JSON
 * request log (path without query string: DDNS clients put credentials there), request
 * metrics. (Errors raised before a route runs — malformed JSON, bodies over 1 MiB,
 * unknown routes — reach Nest's handlers and so the global exception filter.)
 */
export function installRequestContext(
  fastify: FastifyInstance,
  logger: Logger,
  metrics: Metrics,
  logRequests: boolean,
): void {
  // Callback hooks, not async ones: they run on every request, and an async hook costs a
  // promise and a microtask turn each.
  fastify.addHook('onRequest', (req, reply, done) => {
    // Lower case, as Fastify sends it anyway: it lowercases every name it is given.
    void reply.header('x-request-id', req.id);
    done();
  });
  // The request's origin for the events its command appends (libs/shared/command-origin.ts),
  // set just before the handler, after the body has been read. The request keeps it (the
  // auth guard adds the actor, routes that state their origin read it there); other routes
  // run their whole async execution under it until the answer has gone.
  fastify.addHook('preHandler', (req, reply, done) => {
    const origin: CommandOrigin = { correlationId: req.id, sourceIp: req.ip };
    (req as OriginCarrier).origin = origin;
    if ((req.routeOptions.config as { [EXPLICIT_ORIGIN]?: boolean } | undefined)?.[EXPLICIT_ORIGIN]) return done();
    const close = openOrigin(origin, done);
    // A connection already gone has emitted its `close`: the scope must not stay open for ever.
    if (reply.raw.closed) close();
    else reply.raw.once('close', close);
  });
  fastify.addHook('onResponse', (req: FastifyRequest, reply, done) => {
    const route = req.routeOptions?.url ?? 'unmatched';
    const seconds = reply.elapsedTime / 1000;
    metrics.observeRequest(req.method, route, reply.statusCode, seconds);
    if (logRequests) {
      logger.info('request', {
        request_id: req.id,
        method: req.method,
        path: req.url.split('?')[0],
        status: reply.statusCode,
        duration_ms: Math.round(reply.elapsedTime * 100) / 100,
        account_id: (req as { principal?: { accountId?: number } }).principal?.accountId,
      });
    }
    done();
  });
}
