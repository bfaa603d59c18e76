import { BeforeApplicationShutdown, Inject, Injectable } from '@nestjs/common';
import { CheckpointedConsumer } from '../consumers/checkpointed-consumer';
import { EVENT_STORE, EventStore, RecordedEvent } from '../eventstore/event-store.port';
import { ProjectionEngine } from '../projection-engine/projection-engine';
import { tooManyRequests } from '../shared/errors';
import { LOGGER, Logger } from '../shared/logger';
import { ALL_PROJECTIONS } from '../../projections';
import { HandledBy, handledBy, LIVE_TOPICS, LiveNotice, liveEventTypes, routeEvent } from './live-topics';

/** Limits of decision 0085, each with its figure. */
export const LIVE_LIMITS = {
  /** Open streams per session: a few tabs of one browser. */
  perSession: 4,
  /** Open streams per account, over all its sessions. */
  perAccount: 16,
  /** Open streams this process serves at all. */
  perProcess: 2000,
  /** A comment line this often keeps proxies from closing an idle stream and finds dead peers. */
  heartbeatMs: 15_000,
  /** The session behind a stream is checked again this often; an ended session ends the stream. */
  recheckMs: 60_000,
  /** A client that lets this much of its stream pile up unread is dropped (it reconnects and re-reads). */
  maxBufferedBytes: 64 * 1024,
  /** A notice waits at most this long for the read models its readers read. */
  catchUpMs: 2000,
} as const;

/** The wire side of one stream (the HTTP response), as the hub uses it. */
export interface LiveSink {
  write(chunk: string): void;
  /** Bytes written but not yet taken by the client. */
  buffered(): number;
  end(): void;
}

interface Connection {
  accountId: number;
  sessionId: string;
  sink: LiveSink;
  /** Answers false once the session behind the stream has ended. */
  stillValid: () => Promise<boolean>;
  heartbeat: NodeJS.Timeout;
  lastCheck: number;
}

/** Account events after which a session may no longer be valid. */
const SESSION_ENDINGS = new Set(['SessionEnded', 'PasswordChanged', 'AccountDisabled', 'AccountDeleted']);
/** What session verification reads. */
const SESSION_READ_MODELS = ['sessions', 'accounts'];

export const sseFrame = (event: string, data: unknown, id?: string): string =>
  `${id ? `id: ${id}\n` : ''}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/**
 * The account-scoped live notices of this process (decision 0085): one subscription to
 * `$all` from the head, started with the first stream and stopped with the last, routes
 * each event to the open streams of its own account only, once the read models the
 * notice's readers read have applied it (the page reads again and sees the change).
 */
@Injectable()
export class LiveEventHub implements BeforeApplicationShutdown {
  private readonly handled: HandledBy;
  private readonly types: Set<string>;
  private readonly byAccount = new Map<number, Set<Connection>>();
  private consumer: CheckpointedConsumer | null = null;
  private starting: Promise<void> | null = null;
  private count = 0;

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly projections: ProjectionEngine,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    const running = new Set(projections.names());
    this.handled = handledBy(ALL_PROJECTIONS.filter((p) => running.has(p.name)));
    this.types = new Set([...liveEventTypes(this.handled), ...SESSION_ENDINGS]);
  }

  /**
   * Opens a stream for a session; refuses beyond the limits (429, thrown before `begin`,
   * so the refusal is an ordinary error answer). `begin` starts the response.
   */
  async open(
    accountId: number,
    sessionId: string,
    sink: LiveSink,
    stillValid: () => Promise<boolean>,
    begin: () => void = () => undefined,
  ): Promise<() => void> {
    const mine = this.byAccount.get(accountId) ?? new Set<Connection>();
    const ofSession = [...mine].filter((c) => c.sessionId === sessionId).length;
    if (
      ofSession >= LIVE_LIMITS.perSession ||
      mine.size >= LIVE_LIMITS.perAccount ||
      this.count >= LIVE_LIMITS.perProcess
    ) {
      throw tooManyRequests(
        'too_many_streams',
        'Too many live connections are open for this account; close a tab and try again',
        30,
      );
    }
    await this.ensureStarted();
    begin();
    const connection: Connection = {
      accountId,
      sessionId,
      sink,
      stillValid,
      lastCheck: Date.now(),
      heartbeat: setInterval(() => void this.beat(connection), LIVE_LIMITS.heartbeatMs),
    };
    connection.heartbeat.unref?.();
    mine.add(connection);
    this.byAccount.set(accountId, mine);
    this.count++;
    // Sent first: the client learns the retry delay, and a reconnect reads everything again.
    sink.write(`retry: 2000\n${sseFrame('ready', { topics: Object.keys(LIVE_TOPICS) })}`);
    return () => this.close(connection);
  }

  /** Open streams of an account (tests and metrics). */
  openFor(accountId: number): number {
    return this.byAccount.get(accountId)?.size ?? 0;
  }

  private async beat(c: Connection): Promise<void> {
    if (Date.now() - c.lastCheck >= LIVE_LIMITS.recheckMs && !(await this.check(c))) return;
    this.send(c, ': heartbeat\n\n');
  }

  private send(c: Connection, chunk: string): void {
    if (c.sink.buffered() > LIVE_LIMITS.maxBufferedBytes) {
      this.close(c);
      return;
    }
    c.sink.write(chunk);
  }

  private close(c: Connection): void {
    const mine = this.byAccount.get(c.accountId);
    if (!mine?.delete(c)) return;
    clearInterval(c.heartbeat);
    this.count--;
    if (mine.size === 0) this.byAccount.delete(c.accountId);
    try {
      c.sink.end();
    } catch {
      /* the peer is gone already */
    }
    if (this.count === 0) void this.stop();
  }

  private ensureStarted(): Promise<void> {
    if (this.consumer) return Promise.resolve();
    this.starting ??= (async () => {
      // From the head: a stream shows what happens from now on; the page read the rest itself.
      const from = await this.store.headPosition();
      this.consumer = new CheckpointedConsumer({
        name: 'live-events',
        store: this.store,
        from,
        handles: this.types,
        apply: (event) => this.route(event),
        log: (msg, extra) => this.logger.warn(msg, extra as Record<string, unknown>),
      });
      this.consumer.start();
    })().finally(() => (this.starting = null));
    return this.starting;
  }

  private route(event: RecordedEvent): void {
    if (!this.byAccount.size) return;
    if (SESSION_ENDINGS.has(event.type)) this.recheckSoon(event);
    const routed = routeEvent(this.handled, event);
    if (!routed || !this.byAccount.has(routed.accountId)) return;
    const id = `${event.position.commit}`;
    void this.projections
      .waitFor(event.position, LIVE_LIMITS.catchUpMs, routed.readModels)
      .then(() => this.deliver(routed.accountId, routed.notice, id));
  }

  /** A logout, password change or disabling ends the streams it ends the sessions of, at once rather than at the next periodic check. */
  private recheckSoon(event: RecordedEvent): void {
    const accountId = event.metadata.account_id;
    const mine = typeof accountId === 'number' ? this.byAccount.get(accountId) : undefined;
    if (!mine) return;
    void this.projections
      .waitFor(
        event.position,
        LIVE_LIMITS.catchUpMs,
        SESSION_READ_MODELS.filter((p) => this.projections.names().includes(p)),
      )
      .then(async () => {
        for (const c of [...mine]) await this.check(c);
      });
  }

  /** Ends the stream when its session has ended; answers whether it goes on. */
  private async check(c: Connection): Promise<boolean> {
    c.lastCheck = Date.now();
    if (await c.stillValid().catch(() => false)) return true;
    c.sink.write(sseFrame('session_ended', {}));
    this.close(c);
    return false;
  }

  private deliver(accountId: number, notice: LiveNotice, id: string): void {
    for (const c of this.byAccount.get(accountId) ?? []) this.send(c, sseFrame('change', notice, id));
  }

  private async stop(): Promise<void> {
    const consumer = this.consumer;
    this.consumer = null;
    await consumer?.stop();
  }

  async beforeApplicationShutdown(): Promise<void> {
    for (const mine of [...this.byAccount.values()]) for (const c of [...mine]) this.close(c);
    await this.stop();
  }
}
