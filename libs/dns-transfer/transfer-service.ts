/**
 * The DNS role's side of contract §18 for messages the query hot path does not serve:
 * AXFR (RFC 5936) and IXFR (RFC 1995) over TCP, TSIG-signed queries (a secondary's SOA
 * check), and UPDATE (RFC 2136, through an injected applier). Every answer to a signed
 * request is signed; a bad key, signature or time answers NOTAUTH with the TSIG error.
 *
 * A transfer streams from a snapshot (references to the index's immutable encoded
 * records) in messages of about 16 KB, each written only when the socket has room, with
 * a turn of the event loop between messages, and at most MAX_CONCURRENT_TRANSFERS run at
 * once: however many secondaries transfer, normal queries keep being answered.
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
  OPCODE,
  RCODE,
  readMessage,
  readName,
  responseFlags,
  WireMessage,
} from './message';
import { findTsig, signMessage, TSIG_ERROR, TsigKey, TsigRecord, TsigStream, verifyTsig } from './tsig';
import type { TransferAcl } from './transfer-acl';
import { parseUpdate, UpdateRejected } from './update-message';
import type { DnsUpdate, UpdatePermission } from '../zones/domain/dns-update';

const TYPE = { SOA: 6, IXFR: 251, AXFR: 252 } as const;
/** Transfer messages are filled to about this size (NSD uses 16 KB too). */
const MESSAGE_TARGET_BYTES = 16 * 1024;
/** Transfers streaming at once; more wait their turn. */
export const MAX_CONCURRENT_TRANSFERS = 4;
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
}

/** RFC 2136 UPDATE, applied elsewhere (one command on the zone's stream); resolves with the RCODE. */
export type UpdateApplier = (request: UpdateRequest) => Promise<number>;

export interface TransferServiceOptions {
  nowSeconds?: () => number;
  report?: (r: TransferReport) => void;
  applyUpdate?: UpdateApplier;
  maxConcurrent?: number;
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
  /** MACs of accepted UPDATEs still inside the TSIG time window: the same signed message twice is a replay. */
  private readonly seenUpdates = new Map<string, number>();
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly index: ZoneIndex,
    private readonly journal: Journal,
    private readonly acl: TransferAcl,
    private readonly options: TransferServiceOptions = {},
  ) {
    this.now = options.nowSeconds ?? (() => Math.floor(Date.now() / 1000));
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
    const contents = this.index.contents(zone)!;
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
    const contents = this.index.contents(zone);
    if (!contents) return write(this.error(msg, m, RCODE.NOTAUTH, v));
    // Owners are compressed against the question (the zone, at offset 12 of every message):
    // a transfer is mostly owner names, and NSD's answers are this size too.
    const owners = new Map<string, Buffer>();
    const ownerOf = (key: string): Buffer => {
      let bytes = owners.get(key);
      if (!bytes) owners.set(key, (bytes = compressedOwner(key, contents.apex)));
      return bytes;
    };
    const apex = ownerOf(contents.apex);
    const soa = contents.soa.encoded[0];
    let records: Array<[Buffer, Buffer]>;
    let style: 'incremental' | 'full' | 'current' = 'full';
    const type = m.questions[0].type === TYPE.IXFR ? 'IXFR' : 'AXFR';
    const clientSerial = type === 'IXFR' ? ixfrSerial(msg, m) : null;
    const deltas: Delta[] | null =
      clientSerial === null
        ? null
        : serialAtOrAfter(clientSerial, contents.serial)
          ? []
          : this.journal.since(zone, clientSerial);
    if (type === 'IXFR' && deltas && deltas.length === 0) {
      style = 'current';
      records = [[apex, soa]];
    } else if (deltas && deltas.length > 0) {
      style = 'incremental';
      records = [[apex, soa]];
      for (const d of deltas) {
        records.push([apex, d.fromSoa]);
        for (const r of d.removed) records.push([ownerOf(r.owner), r.record]);
        records.push([apex, d.toSoa]);
        for (const r of d.added) records.push([ownerOf(r.owner), r.record]);
      }
      records.push([apex, soa]);
    } else {
      records = [[apex, soa]];
      for (const { owner, rrset } of contents.rrsets) {
        const ownerBytes = ownerOf(owner);
        for (const r of rrset.encoded) records.push([ownerBytes, r]);
      }
      records.push([apex, soa]);
    }
    const stream = v.key && v.tsig ? new TsigStream(v.key, v.tsig.mac, this.now) : null;
    const question = msg.subarray(12, m.questionEnd);
    const flags = responseFlags(m.flags, 0, true);
    let parts: Buffer[] = [];
    let size = 0;
    let count = 0;
    const flush = async () => {
      const message = Buffer.concat([header(m.id, flags, [1, count, 0, 0]), question, ...parts]);
      write(stream ? stream.sign(message) : message);
      parts = [];
      size = 0;
      count = 0;
      if (socket.writableLength > SOCKET_HIGH_WATER)
        await new Promise<void>((resolve) => socket.once('drain', resolve).once('close', resolve));
      else await nextTurn();
    };
    for (const [owner, record] of records) {
      if (socket.destroyed) return;
      parts.push(owner, record);
      size += owner.length + record.length;
      count++;
      if (size >= MESSAGE_TARGET_BYTES) await flush();
    }
    if (count > 0) await flush();
    this.options.report?.({
      kind: 'transfer',
      zone,
      client,
      type,
      style,
      serial: contents.serial,
      records: records.length,
    });
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
    if (checked.tsig && this.replayed(checked.tsig)) {
      this.options.report?.({ kind: 'refused', zone, client, reason: 'replayed' });
      return this.error(msg, m, RCODE.REFUSED, checked);
    }
    let rcode: number;
    try {
      const update = parseUpdate(msg, m, zone);
      rcode = await this.options.applyUpdate({ zone, update, allow: key.allow, keyName: key.name, client });
    } catch (e) {
      rcode = e instanceof UpdateRejected ? e.rcode : RCODE.SERVFAIL;
    }
    if (rcode !== RCODE.NOERROR) this.options.report?.({ kind: 'refused', zone, client, reason: 'update_refused' });
    return this.error(msg, m, rcode, checked);
  }

  /** Whether this signed UPDATE was seen within its time window (then refused); remembers it otherwise. */
  private replayed(tsig: TsigRecord): boolean {
    const now = this.now();
    for (const [mac, until] of this.seenUpdates) if (until < now) this.seenUpdates.delete(mac);
    const id = tsig.mac.toString('base64');
    if (this.seenUpdates.has(id)) return true;
    this.seenUpdates.set(id, tsig.timeSigned + tsig.fudge);
    return false;
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

/** Pointer to offset 12: the question's name, the zone. */
const QUESTION_POINTER = Buffer.from([0xc0, 0x0c]);

/** An owner (wire key) at or below the zone apex as its labels above the apex and a pointer to the question. */
function compressedOwner(owner: string, apex: string): Buffer {
  const prefix = owner.length - apex.length;
  return prefix <= 0
    ? QUESTION_POINTER
    : Buffer.concat([Buffer.from(owner.slice(0, prefix), 'latin1'), QUESTION_POINTER]);
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
