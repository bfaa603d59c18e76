import type { FastifyReply } from 'fastify';

/** What Fastify itself sets for a JSON body. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * A body already serialised as JSON, sent as is: with the content type set, Fastify
 * passes a string through instead of stringifying it again (route handlers using
 * `@Res({ passthrough: true })` return what this returns).
 */
export function jsonBody(reply: FastifyReply, json: string): string {
  reply.header('content-type', JSON_CONTENT_TYPE);
  return json;
}
