/**
 * The DNS role's side of contract §18 for messages the query hot path does not serve:
 * AXFR (RFC 5936) and IXFR (RFC 1995) over TCP, TSIG-signed queries (a secondary's SOA
 * check), and UPDATE (RFC 2136, through an injected applier). Every answer to a signed
 * request is signed; a bad key, signature or time answers NOTAUTH with the TSIG error.
 *
 * A transfer streams bodies built when the request is read (transfer-wire.ts: a full
 * transfer's are built once per zone revision and shared), one message of up to 64 KiB at a
 * time, each written only when the socket has room, with a turn of the event loop between
 * messages; all transfers together take at most TRANSFER_TIME_SHARE of the thread's time and
 * at most MAX_CONCURRENT_TRANSFERS run at once: however many secondaries transfer, the
 * queries this thread answers keep most of it (decision 0097).
 */
import type { Socket } from 'node:net';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { ZoneIndex } from '../dns-server';
import { canonicalName } from '../dns-server/names';
import { buildResponse, parseQuery, udpLimit } from '../dns-server/wire';
import type { Delta } from './journal';
import { Journal } from './journal';
import {
  CLASS,
  header,
  MalformedMessage,
  question as questionBytes,
  OPCODE,
  RCODE,
  readMessage,
  readName,
  responseFlags,
  WireMessage,
} from './message';
import { findTsig, signMessage, TSIG_ERROR, TsigKey, TsigRecord, TsigStream, verifyTsig } from './tsig';
import { TimeShare, type TimeShareOptions } from './time-share';
import {
  currentSoa,
  DEFAULT_BODY_CACHE_BYTES,
  FullTransferCache,
  incrementalTransfer,
  type TransferBodies,
} from './transfer-wire';
import type { TransferAcl } from './transfer-acl';
import { parseUpdate, UpdateRejected } from './update-message';
import type { DnsUpdate, UpdatePermission } from '../zones/domain/dns-update';

const TYPE = { SOA: 6, IXFR: 251, AXFR: 252 } as const;
/** Transfers streaming at once; more wait their turn. */
export const MAX_CONCURRENT_TRANSFERS = 4;
/**
 * What transfers may take of the DNS thread's time, all together: a tenth, with 100 ms saved up
 * while idle (a 100,000-record AXFR from the cache takes 2–3 ms of the thread, its first build
 * 10–40 ms), so a lone secondary, or one taking a few zones in a row, is not slowed, and many
 * only share the tenth (decision 0097).
 */
export const TRANSFER_TIME_SHARE: TimeShareOptions = { share: 0.1, burstMs: 100 };
/** Bytes queued on a socket before a transfer waits for the client to read. */
const SOCKET_HIGH_WATER = 256 * 1024;
/** Room kept for the TSIG record in a signed UDP answer. */
const TSIG_ROOM = 160;

export type TransferReport =
  | {
      kind: 'refused';
      zone: string | null;
      client: string;
      reason:
        'unsigned' | 'not_allowed' | 'bad_tsig' | 'not_authoritative' | 'malformed' | 'update_refused' | 'replayed';
    }
  | {
      kind: 'transfer';
      zone: string;
      client: string;
      type: 'AXFR' | 'IXFR';
      style: 'incremental' | 'full' | 'current';
      serial: number;
      records: number;
    };

/** An UPDATE read and authorised, for the write side (plain data: it may cross to the main thread). */
export interface UpdateRequest {
  zone: string;
  update: DnsUpdate;
  allow: UpdatePermission[];
  keyName: string;
  client: string;
  /** The TSIG MAC (base64) and the last second of its time window: the applier refuses a replay. */
  signature?: { mac: string; validUntil: number };
}

/** What an applier answers for an UPDATE it saw before (UpdateReplayGuard); answered REFUSED. */
export const UPDATE_REPLAYED = -1;

/** RFC 2136 UPDATE, applied elsewhere (one command on the zone's stream); resolves with the RCODE or UPDATE_REPLAYED. */
export type UpdateApplier = (request: UpdateRequest) => Promise<number>;

export interface TransferServiceOptions {
  nowSeconds?: () => number;
  report?: (r: TransferReport) => void;
  applyUpdate?: UpdateApplier;
  maxConcurrent?: number;
  timeShare?: TimeShareOptions;
  /** Bytes of full transfers kept for the next secondary (see FullTransferCache). */
  cacheBytes?: number;
}

interface Verified {
  tsig: TsigRecord | null;
  key: TsigKey | null;
}

/** RFC 1982: `a` is at or after `b`. */
const serialAtOrAfter = (a: number, b: number) => a === b || (a - b) >>> 0 < 2 ** 31;

export class TransferService {
  private readonly now: () => number;
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  private readonly share: TimeShare;
  /** Full transfers' wire form by zone revision (diagnostics and benchmarks read `builds`, `bytes`). */
  readonly fullTransfers: FullTransferCache;

  constructor(
    private readonly index: ZoneIndex,
    private readonly journal: Journal,
    private readonly acl: TransferAcl,
    private readonly options: TransferServiceOptions = {},
  ) {
    this.now = options.nowSeconds ?? (() => Math.floor(Date.now() / 1000));
    this.share = new TimeShare(options.timeShare ?? TRANSFER_TIME_SHARE);
    this.fullTransfers = new FullTransferCache(options.cacheBytes ?? DEFAULT_BODY_CACHE_BYTES);
  }

  /** Whether a message goes here rather than to the query path: signed, a transfer, or not a QUERY. */
  claims(msg: Buffer, parsed: ReturnType<typeof parseQuery>): boolean {
    if (parsed.ok) return parsed.query.signed || parsed.query.qtype === TYPE.AXFR || parsed.query.qtype === TYPE.IXFR;
    if (msg.length < 12 || msg[2] & 0x80) return false;
    const opcode = (msg[2] >> 3) & 0xf;
    return opcode === OPCODE.UPDATE || opcode === OPCODE.NOTIFY;
  }

  /** The answer to a claimed UDP message, at most `limit` bytes (null: none). UPDATE answers later through `reply`. */
  answerUdp(msg: Buffer, client: string, reply?: (answer: Buffer) => void): Buffer | null {
    const m = this.read(msg, client);
    if (!m) return null;
    const checked = this.verify(msg, m, client);
    if ('answer' in checked) return checked.answer;
    if (m.opcode === OPCODE.UPDATE) {
      // Applying an update is asynchronous (an append): answered later where the UDP
      // listener can send later (node:dgram); the batch addon cannot, so NOTIMP there (TCP works).
      if (!reply) return this.error(msg, m, RCODE.NOTIMP, checked);
      void this.update(msg, m, client).then(reply);
      return null;
    }
    if (m.opcode !== OPCODE.QUERY) return this.error(msg, m, RCODE.NOTIMP, checked);
    const qtype = m.questions[0]?.type;
    // Transfers are TCP only; an IXFR over UDP gets the current SOA, which sends the client to TCP (RFC 1995 §2).
    if (qtype === TYPE.AXFR) return this.error(msg, m, RCODE.REFUSED, checked);
    if (qtype === TYPE.IXFR) return this.transferOverUdp(msg, m, client, checked);
    return this.signedQuery(msg, checked, false);
  }

  /** Serves a claimed TCP message, writing one or more framed answers on the socket. */
  async answerTcp(msg: Buffer, client: string, socket: Socket): Promise<void> {
    const write = (answer: Buffer | null) => {
      if (!answer || socket.destroyed) return;
      const framed = Buffer.allocUnsafe(answer.length + 2);
      framed.writeUInt16BE(answer.length, 0);
      answer.copy(framed, 2);
      socket.write(framed);
    };
    const m = this.read(msg, client);
    if (!m) return void socket.destroy();
    if (m.opcode === OPCODE.UPDATE) return write(await this.update(msg, m, client));
    const checked = this.verify(msg, m, client);
    if ('answer' in checked) return write(checked.answer);
    if (m.opcode !== OPCODE.QUERY) return write(this.error(msg, m, RCODE.NOTIMP, checked));
    const qtype = m.questions[0]?.type;
    if (qtype !== TYPE.AXFR && qtype !== TYPE.IXFR) return write(this.signedQuery(msg, checked, true));
    const zone = this.authorizedZone(m, client, checked);
    if (typeof zone !== 'string') return write(this.error(msg, m, zone.rcode, checked));
    await this.turn();
    try {
      await this.transfer(msg, m, zone, client, checked, socket, write);
    } finally {
      this.release();
    }
  }

  private read(msg: Buffer, client: string): WireMessage | null {
    try {
      const m = readMessage(msg);
      if (m.isResponse) return null;
      if (m.questions.length !== 1 && m.opcode !== OPCODE.UPDATE) throw new MalformedMessage('one question expected');
      return m;
    } catch (e) {
      if (!(e instanceof MalformedMessage) || msg.length < 12 || msg[2] & 0x80) return null;
      this.options.report?.({ kind: 'refused', zone: null, client, reason: 'malformed' });
      // The header is all that can be trusted; answered FORMERR without a question.
      return { ...emptyMessage(msg), malformed: true } as WireMessage & { malformed: true };
    }
  }

  /** Verifies the TSIG when there is one; a failure is the whole answer (NOTAUTH with the TSIG error). */
  private verify(msg: Buffer, m: WireMessage, client: string): Verified | { answer: Buffer } {
    if ((m as { malformed?: boolean }).malformed)
      return { answer: this.error(msg, m, RCODE.FORMERR, { tsig: null, key: null }) };
    let tsig: TsigRecord | null;
    try {
      tsig = findTsig(msg, m);
    } catch {
      this.options.report?.({ kind: 'refused', zone: null, client, reason: 'malformed' });
      return { answer: this.error(msg, m, RCODE.FORMERR, { tsig: null, key: null }) };
    }
    if (!tsig) return { tsig: null, key: null };
    const key = this.acl.key(canonicalName(tsig.keyName));
    const checked = verifyTsig(msg, tsig, key, this.now());
    if (checked.ok) return { tsig, key: key! };
    this.options.report?.({ kind: 'refused', zone: m.questions[0]?.name ?? null, client, reason: 'bad_tsig' });
    const withoutTsig = Buffer.from(msg.subarray(0, tsig.start));
    withoutTsig.writeUInt16BE(withoutTsig.readUInt16BE(10) - 1, 10);
    const response = this.plainError(withoutTsig, m, RCODE.NOTAUTH);
    const errorKey: TsigKey = key ?? {
      name: canonicalName(tsig.keyName),
      algorithm: tsig.algorithm ?? 'hmac-sha256',
      secret: Buffer.alloc(0),
    };
    if (checked.error === TSIG_ERROR.BADTIME) {
      const other = Buffer.alloc(6);
      other.writeUInt16BE(Math.floor(this.now() / 2 ** 32), 0);
      other.writeUInt32BE(this.now() % 2 ** 32, 2);
      return {
        answer: signMessage(response, errorKey, {
          nowSeconds: tsig.timeSigned,
          requestMac: tsig.mac,
          error: checked.error,
          other,
        }).message,
      };
    }
    return {
      answer: signMessage(response, errorKey, { nowSeconds: this.now(), error: checked.error, unsignedError: true })
        .message,
    };
  }

  /** The zone named by a transfer request when the (verified) key and the client may transfer it, else the RCODE. */
  private authorizedZone(m: WireMessage, client: string, v: Verified): string | { rcode: number } {
    const zone = canonicalName(m.questions[0].name);
    if (!this.index.hasZone(zone) || m.questions[0].class !== CLASS.IN) {
      this.options.report?.({ kind: 'refused', zone, client, reason: 'not_authoritative' });
      return { rcode: RCODE.NOTAUTH };
    }
    if (!v.key) {
      this.options.report?.({ kind: 'refused', zone, client, reason: 'unsigned' });
      return { rcode: RCODE.REFUSED };
    }
    if (!this.acl.mayTransfer(zone, v.key.name, client)) {
      this.options.report?.({ kind: 'refused', zone, client, reason: 'not_allowed' });
      return { rcode: RCODE.REFUSED };
    }
    return zone;
  }

  private transferOverUdp(msg: Buffer, m: WireMessage, client: string, v: Verified): Buffer {
    const zone = this.authorizedZone(m, client, v);
    if (typeof zone !== 'string') return this.error(msg, m, zone.rcode, v);
    const contents = this.index.zoneVersion(zone)!;
    const parts = [Buffer.from(contents.apex, 'latin1'), contents.soa.encoded[0]];
    return this.sign(
      Buffer.concat([
        header(m.id, responseFlags(m.flags, 0, true), [1, 1, 0, 0]),
        msg.subarray(12, m.questionEnd),
        ...parts,
      ]),
      v,
    );
  }

  private async transfer(
    msg: Buffer,
    m: WireMessage,
    zone: string,
    client: string,
    v: Verified,
    socket: Socket,
    write: (b: Buffer) => void,
  ): Promise<void> {
    const version = this.index.zoneVersion(zone);
    if (!version) return write(this.error(msg, m, RCODE.NOTAUTH, v));
    const type = m.questions[0].type === TYPE.IXFR ? 'IXFR' : 'AXFR';
    const clientSerial = type === 'IXFR' ? ixfrSerial(msg, m) : null;
    const deltas: Delta[] | null =
      clientSerial === null
        ? null
        : serialAtOrAfter(clientSerial, version.serial)
          ? []
          : this.journal.since(zone, clientSerial);
    // Building is work of the transfer like writing: timed against the share, a turn of the loop between slices.
    let sliceStarted = performance.now();
    const between = async () => {
      this.share.spent(performance.now() - sliceStarted);
      await nextTurn();
      await this.share.turn();
      sliceStarted = performance.now();
    };
    let style: 'incremental' | 'full' | 'current' = 'full';
    let answer: TransferBodies;
    if (type === 'IXFR' && deltas && deltas.length === 0) {
      style = 'current';
      answer = currentSoa(version);
    } else if (deltas && deltas.length > 0) {
      style = 'incremental';
      answer = await incrementalTransfer(version, deltas, between);
    } else answer = await this.fullTransfers.get(version, () => this.index.contents(zone)!, between);
    // Bodies point at the zone's name at offset 12: the request's question when it is the name in full (it always
    // is in practice: nothing precedes it to point to), else the question written anew.
    const question =
      m.questionEnd - 12 === version.apex.length + 4
        ? msg.subarray(12, m.questionEnd)
        : questionBytes(version.apex, m.questions[0].type, m.questions[0].class);
    const stream = v.key && v.tsig ? new TsigStream(v.key, v.tsig.mac, this.now) : null;
    if (!(await this.stream(answer, m, question, stream, socket))) return;
    this.options.report?.({
      kind: 'transfer',
      zone,
      client,
      type,
      style,
      serial: version.serial,
      records: answer.records,
    });
  }

  /**
   * Writes one message per body, each signed when `tsig` is given (every message: RFC 8945 §5.3.1
   * allows leaving up to 99 in a row unsigned, which would save nothing worth it here, see decision
   * 0098). False when the client went away before the last message was written.
   */
  private async stream(
    answer: TransferBodies,
    m: WireMessage,
    question: Buffer,
    tsig: TsigStream | null,
    socket: Socket,
  ): Promise<boolean> {
    const flags = responseFlags(m.flags, 0, true);
    for (const body of answer.bodies) {
      await this.share.turn();
      if (socket.destroyed) return false;
      const started = performance.now();
      // Length prefix, header and question in one small buffer; the body is shared, written as it is.
      const head = Buffer.allocUnsafe(2 + 12 + question.length);
      head.writeUInt16BE(m.id, 2);
      head.writeUInt16BE(flags, 4);
      head.writeUInt16BE(1, 6);
      head.writeUInt16BE(body.count, 8);
      head.writeUInt32BE(0, 10);
      question.copy(head, 14);
      const record = tsig?.record([head.subarray(2), body.bytes]) ?? null;
      if (record) head.writeUInt16BE(1, 12);
      head.writeUInt16BE(head.length - 2 + body.bytes.length + (record?.length ?? 0), 0);
      // One writev for the three parts.
      socket.cork();
      socket.write(head);
      socket.write(body.bytes);
      if (record) socket.write(record);
      socket.uncork();
      this.share.spent(performance.now() - started);
      if (socket.writableLength > SOCKET_HIGH_WATER) await drained(socket);
      else await nextTurn();
    }
    // All written: a secondary closing as soon as it has the last message has had the whole transfer.
    return true;
  }

  /** A signed query that is not a transfer: answered from the index like any query, then signed. */
  private signedQuery(msg: Buffer, v: Verified, tcp: boolean): Buffer {
    const withoutTsig = v.tsig ? unsignedCopy(msg, v.tsig) : msg;
    const parsed = parseQuery(withoutTsig);
    if (!parsed.ok) return this.sign(Buffer.from(withoutTsig.subarray(0, 12)), v);
    const q = parsed.query;
    const prepared = this.index.answer(q.key, q.qtype);
    const limit = (tcp ? 0xffff : udpLimit(q)) - (v.tsig ? TSIG_ROOM : 0);
    return this.sign(buildResponse(withoutTsig, q, prepared.body, limit), v);
  }

  private async update(msg: Buffer, m: WireMessage, client: string): Promise<Buffer> {
    const checked = this.verify(msg, m, client);
    if ('answer' in checked) return checked.answer;
    const zoneQuestion = m.questions[0];
    if (m.questions.length !== 1 || zoneQuestion.type !== TYPE.SOA) return this.error(msg, m, RCODE.FORMERR, checked);
    const zone = canonicalName(zoneQuestion.name);
    if (!this.index.hasZone(zone)) return this.error(msg, m, RCODE.NOTAUTH, checked);
    const key = checked.key ? this.acl.updateKey(zone, checked.key.name) : undefined;
    if (!key || !this.options.applyUpdate) {
      this.options.report?.({ kind: 'refused', zone, client, reason: checked.key ? 'not_allowed' : 'unsigned' });
      return this.error(msg, m, RCODE.REFUSED, checked);
    }
    const tsig = checked.tsig;
    const signature = tsig ? { mac: tsig.mac.toString('base64'), validUntil: tsig.timeSigned + tsig.fudge } : undefined;
    let rcode: number;
    try {
      const update = parseUpdate(msg, m, zone);
      rcode = await this.options.applyUpdate({ zone, update, allow: key.allow, keyName: key.name, client, signature });
    } catch (e) {
      rcode = e instanceof UpdateRejected ? e.rcode : RCODE.SERVFAIL;
    }
    if (rcode === UPDATE_REPLAYED) {
      this.options.report?.({ kind: 'refused', zone, client, reason: 'replayed' });
      return this.error(msg, m, RCODE.REFUSED, checked);
    }
    if (rcode !== RCODE.NOERROR) this.options.report?.({ kind: 'refused', zone, client, reason: 'update_refused' });
    return this.error(msg, m, rcode, checked);
  }

  /** Header and question with `rcode` (signed when the request was). */
  private error(msg: Buffer, m: WireMessage, rcode: number, v: Verified): Buffer {
    const source = v.tsig ? unsignedCopy(msg, v.tsig) : msg;
    return this.sign(this.plainError(source, m, rcode), v);
  }

  private plainError(msg: Buffer, m: WireMessage, rcode: number): Buffer {
    const question = m.questionEnd > 12 ? msg.subarray(12, m.questionEnd) : Buffer.alloc(0);
    return Buffer.concat([header(m.id, responseFlags(m.flags, rcode, false), [m.questions.length, 0, 0, 0]), question]);
  }

  private sign(response: Buffer, v: Verified): Buffer {
    if (!v.key || !v.tsig) return response;
    return signMessage(response, v.key, { nowSeconds: this.now(), requestMac: v.tsig.mac }).message;
  }

  private async turn(): Promise<void> {
    const max = this.options.maxConcurrent ?? MAX_CONCURRENT_TRANSFERS;
    if (this.running < max) {
      this.running++;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.running--;
  }
}

/** Resolves when the socket has written what was queued, or closed. */
function drained(socket: Socket): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      socket.off('drain', done).off('close', done);
      resolve();
    };
    socket.on('drain', done).on('close', done);
  });
}

function unsignedCopy(msg: Buffer, tsig: TsigRecord): Buffer {
  const out = Buffer.from(msg.subarray(0, tsig.start));
  out.writeUInt16BE(out.readUInt16BE(10) - 1, 10);
  return out;
}

function emptyMessage(msg: Buffer): WireMessage {
  const flags = msg.readUInt16BE(2);
  return {
    id: msg.readUInt16BE(0),
    flags,
    opcode: (flags >> 11) & 0xf,
    rcode: 0,
    isResponse: false,
    questions: [],
    questionEnd: 12,
    answers: [],
    authorities: [],
    additionals: [],
  };
}

/** The serial of the SOA in an IXFR request's authority section (RFC 1995 §3); null when absent. */
function ixfrSerial(msg: Buffer, m: WireMessage): number | null {
  const soa = m.authorities.find((r) => r.type === TYPE.SOA);
  if (!soa) return null;
  try {
    const mname = readName(msg, soa.rdlengthAt + 2);
    const rname = readName(msg, mname.end);
    if (rname.end + 4 > soa.end) return null;
    return msg.readUInt32BE(rname.end);
  } catch {
    return null;
  }
}
