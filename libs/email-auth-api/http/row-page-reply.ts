import type { FastifyReply, FastifyRequest } from 'fastify';
import { EncodedRowPage } from '../application/encoded-row-page';
import { acceptsGzip, ifNoneMatchHits } from '../domain/content-negotiation';
import { JSON_CONTENT_TYPE } from './json-body';

/**
 * Answers with a report-row page (route handlers using `@Res({ passthrough: true })`
 * return what this returns): 304 without a body when If-None-Match names its ETag, else
 * its JSON, gzip-compressed when Accept-Encoding allows. `Cache-Control: private, no-cache`:
 * only the client may keep it (it is a key's data), and it asks again before reuse (the
 * key may have been revoked), which the ETag makes cheap.
 */
export function rowPageReply(request: FastifyRequest, reply: FastifyReply, page: EncodedRowPage): Buffer | undefined {
  reply.header('ETag', page.etag).header('Vary', 'Accept-Encoding').header('Cache-Control', 'private, no-cache');
  if (ifNoneMatchHits(request.headers['if-none-match'], page.etag)) {
    reply.code(304);
    return undefined;
  }
  reply.header('content-type', JSON_CONTENT_TYPE);
  if (!acceptsGzip(request.headers['accept-encoding'])) return page.json();
  reply.header('Content-Encoding', 'gzip');
  return page.gzip();
}
