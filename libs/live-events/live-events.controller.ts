import { Controller, Get, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Authenticator } from '../auth/authenticator';
import { browserSessionToken } from '../auth/browser-session';
import { CurrentPrincipal, Principal, SessionOnly } from '../auth/principal';
import { LiveEventHub } from './live-hub';

/** The session token the request authenticated with: the dashboard's cookie, or a Bearer session. */
function sessionToken(req: FastifyRequest): string {
  const cookie = browserSessionToken(req as unknown as Parameters<typeof browserSessionToken>[0]);
  if (cookie) return cookie;
  return (req.headers.authorization ?? '').replace(/^Bearer\s+/i, '');
}

@ApiTags('account')
@Controller()
export class LiveEventsController {
  constructor(
    private readonly hub: LiveEventHub,
    private readonly authenticator: Authenticator,
  ) {}

  /**
   * `GET /account/events/stream`: Server-Sent Events telling the page which of its data
   * changed (decision 0085). Sessions only (the dashboard's cookie): an API key has the
   * webhooks for this.
   */
  @SessionOnly()
  @Get('account/events/stream')
  @ApiOperation({
    summary: 'Live notices for the dashboard (Server-Sent Events)',
    description:
      'text/event-stream. `ready` first ({topics}), then `change` ({topics, type, ref?}) when data of the account changes, ' +
      'a comment heartbeat every 15 s, and `session_ended` before the stream closes when the session has ended. ' +
      'Session authentication only; at most 4 streams per session and 16 per account (429 too_many_streams).',
  })
  @ApiProduces('text/event-stream')
  @ApiOkResponse({ description: 'The event stream', content: { 'text/event-stream': { schema: { type: 'string' } } } })
  async stream(
    @CurrentPrincipal() p: Principal,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const token = sessionToken(req);
    const raw = reply.raw;
    const stillValid = async () => {
      const again = await this.authenticator.fromSessionToken(token);
      return again.accountId === p.accountId && again.sessionId === p.sessionId;
    };
    // Refusals (429) go out as ordinary JSON errors, before the stream starts.
    const close = await this.hub.open(
      p.accountId,
      p.sessionId ?? 'session',
      {
        // A peer gone between its close and our hearing of it: nothing to write to.
        write: (chunk) => void (raw.destroyed || raw.writableEnded || raw.write(chunk)),
        buffered: () => raw.writableLength,
        end: () => raw.end(),
      },
      stillValid,
      () => {
        // Headers go out with the first frame, the hub's `ready`.
        reply.hijack();
        raw.writeHead(200, {
          ...(reply.getHeaders() as Record<string, string>),
          'Content-Type': 'text/event-stream; charset=utf-8',
          'Cache-Control': 'no-store',
          Connection: 'keep-alive',
          // Proxies that buffer (nginx) pass the stream on at once.
          'X-Accel-Buffering': 'no',
        });
      },
    );
    raw.on('close', close);
    // A failed write (the peer reset the connection) ends the stream; it never reaches the process as an unhandled error.
    raw.on('error', close);
  }
}
