import { Controller, Get, Inject, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '../../auth/principal';
import { ExplicitOrigin, requestOrigin } from '../../shared/http/request-context';
import { LOGGER, Logger } from '../../shared/logger';
import { textLine, v2Result } from '../domain/answers';
import { Params } from '../domain/ddns-request';
import { BadAuth, DdnsAuthenticator } from '../application/ddns-authenticator';
import { DdnsOutcome, DdnsService } from '../application/ddns.service';

export type Protocol = 'dyndns2' | 'v2';
const TEXT = 'text/plain; charset=utf-8';
const CHALLENGE = 'Basic realm="ddns"';

/** Query string and form body together; body values win (a POST form is the client's latest word). */
const paramsOf = (req: FastifyRequest): Params => {
  const body = req.body && typeof req.body === 'object' && !Buffer.isBuffer(req.body) ? (req.body as Params) : null;
  // A GET (every usual client) has no body: its query is read as it is (nothing here changes it).
  return body ? { ...(req.query as Params), ...body } : (req.query as Params);
};

/**
 * Dynamic-DNS update endpoints (ddns.md). They authenticate themselves (Basic, Bearer or
 * query credentials), so the global guard lets them through. Answers are sent as whole
 * strings: Fastify then sets Content-Length, and nothing is chunked (ddclient 3.10
 * cannot read chunked bodies). The updates run without the async-context origin: the
 * request's id goes to the commands, which state it on their events (decision 0109).
 */
@Public()
@Controller('domains')
export class DdnsController {
  constructor(
    private readonly auth: DdnsAuthenticator,
    private readonly ddns: DdnsService,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  @Get('nic/update')
  @ExplicitOrigin()
  nicGet(@Req() req: FastifyRequest, @Res() reply: FastifyReply) {
    return this.answer('dyndns2', req, reply);
  }
  @Post('nic/update')
  @ExplicitOrigin()
  nicPost(@Req() req: FastifyRequest, @Res() reply: FastifyReply) {
    return this.answer('dyndns2', req, reply);
  }
  @Get('dyndns/update')
  @ExplicitOrigin()
  dyndnsGet(@Req() req: FastifyRequest, @Res() reply: FastifyReply) {
    return this.answer('dyndns2', req, reply);
  }
  @Post('dyndns/update')
  @ExplicitOrigin()
  dyndnsPost(@Req() req: FastifyRequest, @Res() reply: FastifyReply) {
    return this.answer('dyndns2', req, reply);
  }
  @Get('v2/update')
  @ExplicitOrigin()
  v2Get(@Req() req: FastifyRequest, @Res() reply: FastifyReply) {
    return this.answer('v2', req, reply);
  }
  @Post('v2/update')
  @ExplicitOrigin()
  v2Post(@Req() req: FastifyRequest, @Res() reply: FastifyReply) {
    return this.answer('v2', req, reply);
  }

  @Get('nic/checkip')
  checkIpGet(@Req() req: FastifyRequest, @Res() reply: FastifyReply) {
    return reply.code(200).header('content-type', TEXT).send(`${req.ip}\n`);
  }
  @Post('nic/checkip')
  checkIpPost(@Req() req: FastifyRequest, @Res() reply: FastifyReply) {
    return this.checkIpGet(req, reply);
  }

  /** One update request answered whole (every failure becomes its protocol's answer): also served by ddns-update-route.ts. */
  async answer(protocol: Protocol, req: FastifyRequest, reply: FastifyReply): Promise<void> {
    const params = paramsOf(req);
    let outcome: DdnsOutcome;
    try {
      const identity = await this.auth.authenticate(req.headers.authorization, params);
      outcome = await this.ddns.update(identity, params, req.ip, requestOrigin(req).correlationId);
    } catch (e) {
      if (e instanceof BadAuth) return this.badauth(protocol, reply);
      this.logger.warn('ddns update failed', { error: e instanceof Error ? e.message : String(e) });
      return this.failing(protocol, reply);
    }
    if (protocol === 'v2') {
      reply
        .code(200)
        .header('content-type', 'application/json; charset=utf-8')
        .send(JSON.stringify({ results: outcome.results.map(v2Result) }));
      return;
    }
    // ddns.md: `badip` is the one dyndns2 answer with HTTP 400 (the request as a whole is refused).
    const refused = outcome.results.some((r) => r.hostname === null && r.result === 'badip');
    reply
      .code(refused ? 400 : 200)
      .header('content-type', TEXT)
      .send(outcome.results.map((r) => textLine(r, outcome.changes)).join('\n'));
  }

  private badauth(protocol: Protocol, reply: FastifyReply): void {
    reply.code(401).header('www-authenticate', CHALLENGE);
    if (protocol === 'v2') {
      reply.header('content-type', 'application/json; charset=utf-8').send(
        JSON.stringify({
          error: { code: 'badauth', message: 'The credentials are not valid for dynamic DNS updates' },
        }),
      );
    } else reply.header('content-type', TEXT).send('badauth');
  }

  /** `911`: the service is failing; clients wait 30 minutes before trying again. */
  private failing(protocol: Protocol, reply: FastifyReply): void {
    if (protocol === 'v2') {
      reply
        .code(500)
        .header('content-type', 'application/json; charset=utf-8')
        .send(
          JSON.stringify({
            error: { code: 'server_error', message: '911: the service cannot take updates now; retry in 30 minutes' },
          }),
        );
    } else reply.code(500).header('content-type', TEXT).send('911');
  }
}
