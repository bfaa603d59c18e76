/**
 * The TCP side of the DNS server (RFC 7766): two-byte length framing, several queries per
 * connection (pipelined, answered in order), and the limits that keep slow or many clients
 * from shutting others out (contract §16, docs/security/intake-and-tcp.md):
 *
 * - a whole message must arrive within `messageDeadlineMs` of its first byte: trickling
 *   bytes does not extend it (the idle timeout alone would be reset by every byte);
 * - a connection without a partial message is closed after `idleTimeoutMs`;
 * - each client address (an IPv6 /64 counts as one, see clientKey) holds at most `maxPerAddress` connections, all together at most
 *   `maxConnections`: past either, a new connection is still taken and the oldest
 *   connection (of that address, or of all) is closed instead, "oldest" meaning the one
 *   that completed a message (or connected) longest ago. A slow client's connections are
 *   always the oldest, so a new client never waits behind them.
 */
import * as net from 'node:net';
import { clientKey } from '../shared/client-address';
import type { PeerAddress } from './udp-listener';

export interface TcpLimits {
  /** Time for one whole message from its first byte, however slowly bytes come. */
  messageDeadlineMs: number;
  /** A connection with no partial message is closed after this long without traffic. */
  idleTimeoutMs: number;
  maxConnections: number;
  maxPerAddress: number;
}

export const DEFAULT_TCP_LIMITS: TcpLimits = {
  messageDeadlineMs: 3_000,
  idleTimeoutMs: 10_000,
  maxConnections: 512,
  maxPerAddress: 32,
};

/**
 * Takes a message whose answer is not one framed buffer (a zone transfer, an UPDATE answered
 * after its append): it writes to the socket itself, and the connection is its own until the
 * promise settles. Reading stops meanwhile; later messages wait their turn (RFC 7766 order).
 */
export type TcpClaim = (socket: net.Socket) => Promise<void>;

/**
 * Answers one DNS message (a view valid only during the call): the framed response, a
 * claim on the connection, or null to close it (bytes that are not DNS: the stream is out of step).
 */
export type TcpResponder = (msg: Buffer, peer: PeerAddress) => Buffer | TcpClaim | null;

/** A client that does not read its answers is cut off once this much waits for it. */
const TCP_MAX_UNREAD = 256 * 1024;

interface Connection {
  socket: net.Socket;
  address: string;
  /** Bytes of a message not yet whole (and what follows it). */
  pending: Buffer;
  /** Closes the connection when the partial message is not whole in time. */
  deadline: NodeJS.Timeout | null;
  /** When a message last completed, or the connection opened (performance-free: Date.now()). */
  progressAt: number;
  /** A claimed message is being answered (see TcpClaim). */
  busy: boolean;
}

export class TcpConnections {
  /** Every connection, oldest progress first (a connection moves to the end when a message completes). */
  private readonly byAge = new Map<net.Socket, Connection>();
  private readonly byAddress = new Map<string, Set<Connection>>();
  /** Connections closed to make room (diagnostics and benchmarks). */
  evicted = 0;
  /** Connections closed for a message not whole by its deadline. */
  timedOut = 0;

  constructor(
    private readonly limits: TcpLimits,
    private readonly respond: TcpResponder,
  ) {}

  get size(): number {
    return this.byAge.size;
  }

  /** Takes a new connection, closing the oldest one first where a cap is reached. */
  accept(socket: net.Socket): void {
    const address = clientKey(socket.remoteAddress);
    const mine = this.byAddress.get(address);
    if (mine && mine.size >= this.limits.maxPerAddress) this.drop(oldestOf(mine), true);
    if (this.byAge.size >= this.limits.maxConnections) this.drop(this.byAge.values().next().value as Connection, true);

    const conn: Connection = { socket, address, pending: EMPTY, deadline: null, progressAt: Date.now(), busy: false };
    this.byAge.set(socket, conn);
    if (mine) mine.add(conn);
    else this.byAddress.set(address, new Set([conn]));
    const remote = socket.remoteAddress ?? '';
    const peer: PeerAddress = () => remote;

    socket.setNoDelay(true);
    socket.setTimeout(this.limits.idleTimeoutMs, () => socket.destroy());
    socket.on('error', () => socket.destroy());
    socket.on('close', () => this.forget(conn));
    socket.on('data', (chunk: Buffer) => this.receive(conn, chunk, peer));
  }

  closeAll(): void {
    for (const conn of [...this.byAge.values()]) this.drop(conn);
  }

  private receive(conn: Connection, chunk: Buffer, peer: PeerAddress): void {
    let pending = conn.pending.length === 0 ? chunk : Buffer.concat([conn.pending, chunk]);
    if (conn.busy) return void (conn.pending = pending);
    let completed = false;
    let claim: TcpClaim | null = null;
    while (pending.length >= 2 && !claim) {
      const length = pending.readUInt16BE(0);
      if (pending.length < 2 + length) break;
      const answer = this.respond(pending.subarray(2, 2 + length), peer);
      pending = pending.subarray(2 + length);
      completed = true;
      if (answer === null) return void this.drop(conn);
      if (typeof answer === 'function') claim = answer;
      else {
        conn.socket.write(answer);
        if (conn.socket.writableLength > TCP_MAX_UNREAD) return void this.drop(conn);
      }
    }
    conn.pending = pending;
    if (claim) {
      // The message is whole: its deadline is over. Writing the answer may take long (a large
      // transfer to a slow secondary), and no read deadline runs meanwhile.
      this.progressed(conn);
      this.serveClaim(conn, claim, peer);
      return;
    }
    if (completed) this.progressed(conn);
    // A message begun and not finished: its clock starts now, and more bytes do not reset it.
    if (pending.length > 0 && !conn.deadline) {
      conn.deadline = setTimeout(() => {
        this.timedOut++;
        this.drop(conn);
      }, this.limits.messageDeadlineMs);
    }
  }

  private serveClaim(conn: Connection, claim: TcpClaim, peer: PeerAddress): void {
    conn.busy = true;
    conn.socket.pause();
    void claim(conn.socket)
      .catch(() => conn.socket.destroy())
      .finally(() => {
        conn.busy = false;
        if (conn.socket.destroyed) return;
        conn.socket.resume();
        // Messages that came in meanwhile (pipelined) are answered now, in order.
        this.receive(conn, EMPTY, peer);
      });
  }

  /** A message completed: the connection is live, and its read deadline is over. */
  private progressed(conn: Connection): void {
    conn.progressAt = Date.now();
    // To the end of the age order: it has just shown it is a live client.
    this.byAge.delete(conn.socket);
    this.byAge.set(conn.socket, conn);
    if (conn.deadline) {
      clearTimeout(conn.deadline);
      conn.deadline = null;
    }
  }

  private drop(conn: Connection, evicting = false): void {
    if (evicting) this.evicted++;
    this.forget(conn);
    conn.socket.destroy();
  }

  /** Idempotent: a dropped connection's 'close' comes later and finds it gone. */
  private forget(conn: Connection): void {
    if (conn.deadline) {
      clearTimeout(conn.deadline);
      conn.deadline = null;
    }
    if (this.byAge.get(conn.socket) !== conn) return;
    this.byAge.delete(conn.socket);
    const mine = this.byAddress.get(conn.address);
    mine?.delete(conn);
    if (mine?.size === 0) this.byAddress.delete(conn.address);
  }
}

const EMPTY = Buffer.alloc(0);

function oldestOf(conns: Set<Connection>): Connection {
  let oldest: Connection | null = null;
  for (const c of conns) if (!oldest || c.progressAt < oldest.progressAt) oldest = c;
  return oldest!;
}
