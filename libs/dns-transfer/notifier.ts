/**
 * NOTIFY (RFC 1996) to a zone's secondaries when its serial changes: sent at once (changes
 * within NOTIFY_COALESCE_MS share one), TSIG-signed with the secondary's key, and retried
 * with backoff (1 s, 2 s, 4 s … at most a minute apart) until the secondary answers or a
 * newer serial supersedes it.
 */
import * as dgram from 'node:dgram';
import { isIP } from 'node:net';
import { nameToWire } from '../dns-server/names';
import type { ZoneIndex } from '../dns-server';
import { header, OPCODE, question, readMessage } from './message';
import { findTsig, signMessage, verifyTsig } from './tsig';
import type { NotifyTarget, TransferAcl } from './transfer-acl';

const NOTIFY_COALESCE_MS = 20;
const FIRST_RETRY_MS = 1000;
const MAX_RETRY_MS = 60_000;
const TYPE_SOA = 6;

export interface NotifyReport {
  zone: string;
  target: string;
  serial: number;
  acknowledged: boolean;
}

interface Pending {
  zone: string;
  target: NotifyTarget;
  serial: number;
  id: number;
  mac: Buffer | null;
  attempts: number;
  timer: NodeJS.Timeout | null;
}

const targetKey = (t: NotifyTarget) => `${t.address}|${t.port}`;

export class Notifier {
  private sockets: { v4: dgram.Socket | null; v6: dgram.Socket | null } = { v4: null, v6: null };
  private readonly pending = new Map<string, Pending>();
  private readonly due = new Set<string>();
  private coalesce: NodeJS.Timeout | null = null;
  private nextId = Math.floor(Math.random() * 0xffff);

  constructor(
    private readonly index: ZoneIndex,
    private readonly acl: TransferAcl,
    private readonly options: {
      report?: (r: NotifyReport) => void;
      nowSeconds?: () => number;
      firstRetryMs?: number;
    } = {},
  ) {}

  async start(): Promise<void> {
    const open = (type: 'udp4' | 'udp6') =>
      new Promise<dgram.Socket | null>((resolve) => {
        const socket = dgram.createSocket(type);
        socket.once('error', () => resolve(null));
        socket.bind(0, () => {
          socket.removeAllListeners('error');
          socket.on('error', () => undefined);
          socket.on('message', (msg, rinfo) => this.answered(msg, rinfo.address, rinfo.port));
          socket.unref();
          resolve(socket);
        });
      });
    this.sockets = { v4: await open('udp4'), v6: await open('udp6') };
  }

  stop(): void {
    for (const p of this.pending.values()) if (p.timer) clearTimeout(p.timer);
    this.pending.clear();
    if (this.coalesce) clearTimeout(this.coalesce);
    this.sockets.v4?.close();
    this.sockets.v6?.close();
    this.sockets = { v4: null, v6: null };
  }

  /** The zone has a new serial: its secondaries hear about it within NOTIFY_COALESCE_MS. */
  changed(zone: string): void {
    this.due.add(zone);
    this.coalesce ??= setTimeout(() => {
      this.coalesce = null;
      const zones = [...this.due];
      this.due.clear();
      for (const z of zones) this.notifyAll(z);
    }, NOTIFY_COALESCE_MS);
  }

  private notifyAll(zone: string): void {
    // Most zones have no secondary: nothing to look up then (this runs for every zone changed in the last 20 ms).
    const targets = this.acl.notifyTargets(zone);
    if (targets.length === 0) return;
    const contents = this.index.zoneVersion(zone);
    if (!contents) return;
    for (const target of targets) {
      const key = `${zone}|${targetKey(target)}`;
      const old = this.pending.get(key);
      if (old?.timer) clearTimeout(old.timer);
      const p: Pending = { zone, target, serial: contents.serial, id: 0, mac: null, attempts: 0, timer: null };
      this.pending.set(key, p);
      this.send(key, p);
    }
  }

  private send(key: string, p: Pending): void {
    if (this.pending.get(key) !== p) return;
    // A secondary removed meanwhile gets no more retries.
    if (!this.acl.notifyTargets(p.zone).some((t) => targetKey(t) === targetKey(p.target)))
      return void this.pending.delete(key);
    const contents = this.index.zoneVersion(p.zone);
    if (!contents) return void this.pending.delete(key);
    p.id = this.nextId = (this.nextId + 1) & 0xffff;
    const apex = nameToWire(p.zone);
    // AA set, one question (the zone's SOA) and the new SOA as a hint (RFC 1996 §3.7).
    const msg = Buffer.concat([
      header(p.id, (OPCODE.NOTIFY << 11) | 0x0400, [1, 1, 0, 0]),
      question(apex.toString('latin1'), TYPE_SOA),
      apex,
      contents.soa.encoded[0],
    ]);
    const signed = p.target.key
      ? signMessage(msg, p.target.key, { nowSeconds: this.now() })
      : { message: msg, mac: null };
    p.mac = signed.mac;
    const socket = isIP(p.target.address) === 6 ? this.sockets.v6 : this.sockets.v4;
    socket?.send(signed.message, p.target.port, p.target.address);
    const delay = Math.min(MAX_RETRY_MS, (this.options.firstRetryMs ?? FIRST_RETRY_MS) * 2 ** p.attempts++);
    p.timer = setTimeout(() => this.send(key, p), delay);
    p.timer.unref();
  }

  private answered(msg: Buffer, address: string, port: number): void {
    for (const [key, p] of this.pending) {
      if (p.target.port !== port || p.target.address !== address || msg.length < 12 || msg.readUInt16BE(0) !== p.id)
        continue;
      try {
        const m = readMessage(msg);
        if (!m.isResponse || m.opcode !== OPCODE.NOTIFY) return;
        if (p.target.key) {
          const tsig = findTsig(msg, m);
          if (!tsig || !verifyTsig(msg, tsig, p.target.key, this.now(), p.mac ?? undefined).ok) return;
        }
      } catch {
        return;
      }
      if (p.timer) clearTimeout(p.timer);
      this.pending.delete(key);
      this.options.report?.({ zone: p.zone, target: `${address}:${port}`, serial: p.serial, acknowledged: true });
      return;
    }
  }

  private now(): number {
    return this.options.nowSeconds?.() ?? Math.floor(Date.now() / 1000);
  }
}
