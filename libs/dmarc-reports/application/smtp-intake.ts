import { Inject, Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { AddressInfo, Socket } from 'node:net';
import { SMTPServer, SMTPServerSession } from 'smtp-server';
import { APP_CONFIG, AppConfig } from '../../shared/config';
import { LOGGER, Logger } from '../../shared/logger';
import { normalizeDomain } from '../domain/aggregate-report';
import { ReportRefused } from '../domain/report-refusal';
import { EnrolledZones } from './enrolled-zones';
import { ReportIngestion } from './report-ingestion';
import { ParseHints } from './report-parser';
import { clientKey } from '../../shared/client-address';
import { ByteBudget, HeldMessage, SessionTable } from './smtp-limits';
import { YoungCollector } from '../../shared/young-collection';

/** Report mailboxes and what each expects (contract §8). */
const MAILBOXES: Record<string, ParseHints['expect']> = {
  'dmarc-rua': 'aggregate',
  'dmarc-ruf': 'failure',
  'tls-rpt': 'tls',
};

/** How far past the size limit a sender may go before it is cut off rather than read to the end. */
const OVERRUN_BEFORE_CUTOFF = 1024 * 1024;
/**
 * Message bytes read, all sessions together, between two young-generation collections. The
 * socket's Buffers and the SMTP stream's copies of them (about twice the bytes read) are dead
 * once HeldMessage has copied them; V8 alone would let 32 MB of them pile up (young-collection.ts).
 */
const COLLECT_YOUNG_EVERY = 2 * 1024 * 1024;
/** A mail's raw size may exceed the unpacked limit by its base64 overhead (4/3) plus headers. */
const maxMessageBytes = (unpackedLimit: number): number => Math.ceil((unpackedLimit * 4) / 3) + 256 * 1024;

interface Recipient {
  expect: ParseHints['expect'];
  zone: string;
}

/**
 * `<mailbox>@<zone>` or `<mailbox>+<zone>@<any host>`: the zone is encoded in the
 * domain or in the local part's detail, so one intake host can serve every zone.
 */
export function reportRecipient(address: string): { expect: ParseHints['expect']; zone: string } | null {
  const at = address.lastIndexOf('@');
  if (at <= 0) return null;
  const [mailbox, detail] = address.slice(0, at).toLowerCase().split('+', 2);
  const expect = MAILBOXES[mailbox];
  if (!expect) return null;
  const zone = normalizeDomain(detail ?? address.slice(at + 1));
  return zone ? { expect, zone } : null;
}

/**
 * The SMTP listener of the `intake` role. Recipients are checked at RCPT (only report
 * mailboxes of enrolled zones), the message is capped at the SIZE limit, and the body
 * goes through the same pipeline as HTTP. Duplicates are answered 250 so a reporter's
 * retry is not bounced; other refusals get a 5xx with the reason. STARTTLS and AUTH are
 * off: reports are public data sent by anyone, and TLS is terminated in front of the role.
 *
 * What a client can hold is bounded (contract §16): sessions per client address (421) and
 * in total (a stalled session gives its place to a new one, else 421; see SessionTable), and
 * message bytes in memory across sessions (452, try later).
 * A message over the size limit is not kept: read to its end (552), or, when the sender goes
 * on OVERRUN_BEFORE_CUTOFF bytes past the limit, answered 552 at once and disconnected.
 */
@Injectable()
export class SmtpIntake implements OnModuleInit, OnApplicationShutdown {
  private server: SMTPServer | null = null;
  private boundPort: number | null = null;
  private readonly held: ByteBudget;
  private readonly sessions: SessionTable;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly ingestion: ReportIngestion,
    private readonly zones: EnrolledZones,
  ) {
    this.held = new ByteBudget(config.smtpMaxHeldBytes);
    this.sessions = new SessionTable(config.smtpMaxClients, config.smtpMaxClientsPerIp, config.smtpStaleSessionMs);
  }

  /** Sessions open now (diagnostics and tests). */
  get openSessions(): number {
    return this.sessions.size;
  }

  /** Message bytes held in memory by all sessions now (diagnostics and tests). */
  get heldBytes(): number {
    return this.held.held;
  }

  /** The port the listener is bound to (SMTP_PORT=0 picks a free one), null when not running. */
  get port(): number | null {
    return this.boundPort;
  }

  async onModuleInit(): Promise<void> {
    if (!this.config.roles.includes('intake')) return;
    const maxBytes = maxMessageBytes(this.config.reportMaxUnpackedBytes);
    const young = new YoungCollector(COLLECT_YOUNG_EVERY);
    const server = new SMTPServer({
      name: 'account-dns-intake',
      banner: 'report intake',
      disabledCommands: ['AUTH', 'STARTTLS'],
      authOptional: true,
      size: maxBytes,
      // No maxClients: smtp-server would refuse past it before onConnect; the total is kept by SessionTable, which can make room.
      // A reverse lookup per connection is work any client can make us do; nothing uses the name.
      disableReverseLookup: true,
      logger: false,
      onConnect: (session, callback) => callback(this.enter(session)),
      onClose: (session) => this.sessions.leave(session.id),
      onMailFrom: (_address, session, callback) => {
        this.sessions.progress(session.id, Date.now());
        callback();
      },
      onRcptTo: (address, session, callback) => {
        this.accept(address.address, session).then(
          () => {
            this.sessions.progress(session.id, Date.now());
            callback();
          },
          (e: Error) => callback(e),
        );
      },
      onData: (stream, session, callback) => {
        const message = new HeldMessage(this.held, maxBytes);
        stream.on('data', (c: Buffer) => {
          message.add(c);
          young.read(c.length);
          if (message.size > maxBytes + OVERRUN_BEFORE_CUTOFF) this.cutOff(session.id, maxBytes);
        });
        // A client gone mid-message: the stream never ends, its bytes are given back here.
        stream.on('close', () => {
          if (!stream.readableEnded) message.release();
        });
        stream.on('error', () => message.release());
        stream.on('end', () => {
          if (message.refused === 'too_large' || stream.sizeExceeded) {
            message.release();
            this.ingestion.noteRefusal('too_large', 'smtp', `message over the SMTP size limit (${maxBytes} bytes)`, {
              session: session.id,
              bytes: message.size,
            });
            callback(smtpError(552, `5.3.4 Message larger than ${maxBytes} bytes`));
            return;
          }
          if (message.refused === 'no_room') {
            this.logger.warn('smtp intake busy: message refused for now', {
              session: session.id,
              held: this.held.held,
              cap: this.held.cap,
            });
            callback(smtpError(452, '4.3.1 Too many messages in progress, try again later'));
            return;
          }
          this.sessions.progress(session.id, Date.now());
          this.deliver(message.content(), session)
            .finally(() => message.release())
            .then(
              (reply) => callback(null, reply),
              (e: Error) => callback(e),
            );
        });
      },
    });
    server.on('error', (e) => this.logger.error('smtp intake error', { error: (e as Error).message }));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.config.smtpPort, this.config.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
    this.boundPort = (server as unknown as { server: { address(): AddressInfo } }).server.address().port;
    this.logger.info('smtp intake listening', { port: this.boundPort });
  }

  /**
   * A sender still streaming far past the size limit (it ignored SIZE): answered 552 at once
   * and disconnected, since reading the rest costs memory churn and CPU for nothing (every
   * chunk is copied by the SMTP stream before it is dropped: 4 × 200 MB raised RSS by 60–70 MB).
   * Reading stops at once; the socket is destroyed once the reply had a moment to leave.
   */
  private cutOff(sessionId: string, maxBytes: number): void {
    for (const connection of this.server?.connections ?? []) {
      if (connection.id !== sessionId) continue;
      const socket = (connection as unknown as { _socket?: Socket })._socket;
      if (!socket || socket.destroyed) return;
      socket.pause();
      this.ingestion.noteRefusal(
        'too_large',
        'smtp',
        `message over the SMTP size limit (${maxBytes} bytes), sender cut off`,
        { session: sessionId },
      );
      connection.send(552, `5.3.4 Message larger than ${maxBytes} bytes, closing connection`);
      connection.close();
      setTimeout(() => socket.destroy(), 1000).unref();
    }
  }

  /** A refusal (421) when the client's address has its share of sessions, or every place is taken by a live session. */
  private enter(session: SMTPServerSession): Error | undefined {
    const address = clientKey(session.remoteAddress);
    const admission = this.sessions.enter(session.id, address, Date.now());
    if (!admission.admit) {
      this.logger.warn('smtp intake: session refused', {
        address,
        reason: admission.reason,
        sessions: this.sessions.size,
      });
      return admission.reason === 'address_full'
        ? smtpError(421, '4.7.0 Too many connections from your address, try again later')
        : smtpError(421, '4.7.0 Too many connected clients, try again in a moment');
    }
    if (admission.evict !== null) {
      for (const connection of this.server?.connections ?? [])
        if (connection.id === admission.evict) connection.close();
      this.logger.warn('smtp intake: stalled session closed to make room', { session: admission.evict });
    }
    return undefined;
  }

  private async accept(address: string, session: SMTPServerSession): Promise<void> {
    const recipient = reportRecipient(address);
    if (!recipient) throw smtpError(550, `5.1.1 <${address}>: no such report mailbox`);
    const owner = await this.zones.owner(recipient.zone);
    if (!owner || owner.zone !== recipient.zone) {
      this.ingestion.noteRefusal(
        'unknown_domain',
        'smtp',
        `recipient ${address} is not a report address of an enrolled zone`,
        { session: session.id },
      );
      throw smtpError(550, `5.1.1 <${address}>: ${recipient.zone} is not enrolled in Email Authentication`);
    }
    const recipients = ((session as unknown as { reportRecipients?: Recipient[] }).reportRecipients ??= []);
    recipients.push(recipient);
  }

  private async deliver(raw: Buffer, session: SMTPServerSession): Promise<string> {
    const [recipient] = (session as unknown as { reportRecipients?: Recipient[] }).reportRecipients ?? [];
    try {
      const result = await this.ingestion.ingest(raw, {
        source: 'smtp',
        hints: { expect: recipient?.expect },
        zone: recipient?.zone,
        correlationId: session.id,
      });
      return `2.0.0 ${result.kind} report ${result.report_key} accepted for ${result.zone} (${result.record_count} records)`;
    } catch (e) {
      if (e instanceof ReportRefused) {
        if (e.reason === 'duplicate') return `2.0.0 Duplicate report ignored: ${e.message}`;
        throw smtpError(
          e.reason === 'too_large' || e.reason === 'decompression_bomb' ? 552 : 550,
          `5.6.0 Report refused (${e.reason}): ${e.message}`,
        );
      }
      this.logger.error('smtp intake failed', { error: (e as Error).message });
      throw smtpError(451, '4.3.0 Temporary failure storing the report, try again later');
    }
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

const smtpError = (code: number, message: string): Error => Object.assign(new Error(message), { responseCode: code });
