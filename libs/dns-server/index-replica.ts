/**
 * One fold of the events, several indexes: the DNS thread that folds the events (the
 * leader) ships what changed in its ZoneIndex, as the index holds it (wire form, signatures,
 * serials), to the DNS threads of the same process that only answer (replicas), one buffer
 * per batch. A replica installs each name's RRsets as they are: it reads no events, parses no
 * record text, signs nothing and keeps none of the fold's state (hosts, ownership rules,
 * DNSSEC keys).
 *
 * What is shipped is the state of each changed zone and name when the batch is drained, not
 * the operations that led to it: applying a batch twice, or a name that changed several times
 * in it, gives the same index. A snapshot (every zone and name) starts a replica, or one whose
 * leader was replaced.
 */
import type { IndexTracker, ReplicaNode, ReplicaZone, RRset, Zone, ZoneDefinition, ZoneIndex } from './zone-index';

const OP_END = 0;
const OP_REMOVE_ZONE = 1;
const OP_ZONE = 2;
/** A zone's name, how many names follow, then each name's state. */
const OP_NODES = 3;
/** A zone's name and its new serial (ZoneIndex.replicaSerial): a batch of DDNS updates moves nothing else of it. */
const OP_SERIAL = 4;

const ZONE_FRESH = 1;
const ZONE_SIGNED = 2;
const ZONE_CHAIN = 4;

const FLAG_RESET = 1;

/** Shared by every RRset a replica builds with no signatures or targets: never written to. */
const NONE = Object.freeze([]) as unknown as never[];

/** Room kept between batches: a batch is written here, then copied out at its size (a snapshot may need more, once). */
const KEPT_BYTES = 256 * 1024;
let scratch = Buffer.allocUnsafe(KEPT_BYTES);

/** Writes one batch into the shared scratch buffer (batches are written one at a time, synchronously). */
class Writer {
  private buf = scratch;
  at = 0;

  private room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.at + n));
    this.buf.copy(bigger, 0, 0, this.at);
    this.buf = bigger;
    if (bigger.length <= 4 * KEPT_BYTES) scratch = bigger;
  }

  u8(v: number): void {
    this.room(1);
    this.buf[this.at++] = v;
  }

  u16(v: number): void {
    this.room(2);
    this.at = this.buf.writeUInt16BE(v, this.at);
  }

  u32(v: number): void {
    this.room(4);
    this.at = this.buf.writeUInt32BE(v, this.at);
  }

  patchU32(at: number, v: number): void {
    this.buf.writeUInt32BE(v, at);
  }

  bytes(b: Buffer): void {
    this.u16(b.length);
    this.room(b.length);
    this.at += b.copy(this.buf, this.at);
  }

  str(s: string, encoding: 'utf8' | 'latin1' = 'utf8'): void {
    // Names and addresses are short and mostly ASCII: copied here, cheaper than a call into Buffer.write.
    if (s.length <= 64) {
      this.room(4 + s.length);
      const start = this.at + 4;
      let i = 0;
      for (; i < s.length; i++) {
        const c = s.charCodeAt(i);
        if (c > (encoding === 'latin1' ? 0xff : 0x7f)) break;
        this.buf[start + i] = c;
      }
      if (i === s.length) {
        this.buf.writeUInt32BE(s.length, this.at);
        this.at = start + s.length;
        return;
      }
    }
    const length = Buffer.byteLength(s, encoding);
    this.u32(length);
    this.room(length);
    this.at += this.buf.write(s, this.at, length, encoding);
  }

  nullable(s: string | null): void {
    this.u8(s === null ? 0 : 1);
    if (s !== null) this.str(s);
  }

  /** The bytes written, in an ArrayBuffer of their own (to be transferred). */
  finish(): ArrayBuffer {
    const out = new ArrayBuffer(this.at);
    this.buf.copy(new Uint8Array(out), 0, 0, this.at);
    return out;
  }
}

class Reader {
  at = 0;
  constructor(private readonly buf: Buffer) {}

  u8(): number {
    return this.buf[this.at++];
  }

  u16(): number {
    const v = this.buf.readUInt16BE(this.at);
    this.at += 2;
    return v;
  }

  u32(): number {
    const v = this.buf.readUInt32BE(this.at);
    this.at += 4;
    return v;
  }

  /** A copy: the index keeps it, and the batch's buffer should not stay alive with it. */
  bytes(): Buffer {
    const length = this.u16();
    const out = Buffer.from(this.buf.subarray(this.at, this.at + length));
    this.at += length;
    return out;
  }

  str(encoding: 'utf8' | 'latin1' = 'utf8'): string {
    const length = this.u32();
    const s = this.buf.toString(encoding, this.at, this.at + length);
    this.at += length;
    return s;
  }

  nullable(): string | null {
    return this.u8() === 0 ? null : this.str();
  }
}

function writeList(w: Writer, items: readonly Buffer[]): void {
  w.u16(items.length);
  for (const b of items) w.bytes(b);
}

function readList(r: Reader): Buffer[] {
  const n = r.u16();
  if (n === 0) return NONE;
  const out = new Array<Buffer>(n);
  for (let i = 0; i < n; i++) out[i] = r.bytes();
  return out;
}

function writeStrings(w: Writer, items: readonly string[]): void {
  w.u16(items.length);
  for (const s of items) w.str(s);
}

function readStrings(r: Reader): string[] {
  const n = r.u16();
  if (n === 0) return NONE;
  const out = new Array<string>(n);
  for (let i = 0; i < n; i++) out[i] = r.str();
  return out;
}

function writeRRset(w: Writer, rrset: RRset): void {
  w.u16(rrset.type);
  w.u32(rrset.ttl);
  writeList(w, rrset.encoded);
  writeList(w, rrset.sigs);
  writeStrings(w, rrset.texts);
  writeStrings(w, rrset.targets);
}

function readRRset(r: Reader): RRset {
  const type = r.u16();
  const ttl = r.u32();
  const encoded = readList(r);
  const sigs = readList(r);
  const texts = readStrings(r);
  const targets = readStrings(r);
  return { type, ttl, encoded, sigs, texts, targets };
}

/**
 * The leader's side: told by its ZoneIndex (ZoneIndex.track) which zones and names change,
 * it writes their state when drained. `onDirty` is called at the first change after a drain,
 * so the owner can drain once per turn of the event loop.
 */
export class IndexChangeLog implements IndexTracker {
  private readonly zones = new Set<string>();
  private readonly fresh = new Set<string>();
  private readonly chains = new Set<string>();
  private readonly serials = new Set<string>();
  private readonly nodes = new Map<string, Set<string>>();
  private dirty = false;

  constructor(
    private readonly index: ZoneIndex,
    private readonly onDirty: () => void = () => undefined,
  ) {
    index.track(this);
  }

  private mark(): void {
    if (this.dirty) return;
    this.dirty = true;
    this.onDirty();
  }

  /** Something else is to be shipped (the `extra` of the next drain). */
  touch(): void {
    this.mark();
  }

  zoneChanged(zone: string): void {
    this.zones.add(zone);
    this.mark();
  }

  nodeChanged(zone: string, key: string): void {
    let keys = this.nodes.get(zone);
    if (!keys) this.nodes.set(zone, (keys = new Set()));
    keys.add(key);
    this.mark();
  }

  chainChanged(zone: string): void {
    this.chains.add(zone);
    this.mark();
  }

  serialChanged(zone: string): void {
    this.serials.add(zone);
    this.mark();
  }

  zoneRemoved(zone: string): void {
    this.fresh.add(zone);
    this.nodes.delete(zone);
    this.mark();
  }

  /** What changed since the last drain (null: nothing), `extra` (JSON-able) carried first. */
  drain(extra?: unknown): ArrayBuffer | null {
    if (!this.dirty && extra === undefined) return null;
    this.dirty = false;
    const w = new Writer();
    w.u8(0);
    writeExtra(w, extra);
    for (const name of this.fresh) {
      const zone = this.index.zoneState(name);
      if (zone) writeWholeZone(w, zone);
      else {
        w.u8(OP_REMOVE_ZONE);
        w.str(name);
      }
    }
    // Before the zones' and names' states: a zone signed later in the batch ships its signed SOA after it.
    for (const name of this.serials) {
      const zone = this.index.zoneState(name);
      if (!zone || this.fresh.has(name)) continue;
      w.u8(OP_SERIAL);
      w.str(name);
      w.u32(zone.def.soa.serial >>> 0);
    }
    for (const name of this.zones) {
      const zone = this.index.zoneState(name);
      if (zone && !this.fresh.has(name)) writeZone(w, zone, false, this.chains.has(name));
    }
    for (const name of this.chains) {
      const zone = this.index.zoneState(name);
      if (zone && !this.fresh.has(name) && !this.zones.has(name)) writeZone(w, zone, false, true);
    }
    for (const [name, keys] of this.nodes) {
      const zone = this.index.zoneState(name);
      if (zone && !this.fresh.has(name)) writeNodes(w, zone, keys);
    }
    w.u8(OP_END);
    this.clear();
    return w.finish();
  }

  /** Forgets what changed (no replica to tell): the next snapshot carries it. */
  discard(): void {
    this.clear();
  }

  private clear(): void {
    this.zones.clear();
    this.fresh.clear();
    this.chains.clear();
    this.serials.clear();
    this.nodes.clear();
    this.dirty = false;
  }
}

/** Every zone and name as `index` holds them now: a replica that starts, or whose leader changed. */
export function indexSnapshot(index: ZoneIndex, extra?: unknown): ArrayBuffer {
  const w = new Writer();
  w.u8(FLAG_RESET);
  writeExtra(w, extra);
  for (const name of index.zoneNames()) writeWholeZone(w, index.zoneState(name)!);
  w.u8(OP_END);
  return w.finish();
}

function writeExtra(w: Writer, extra: unknown): void {
  w.str(extra === undefined ? '' : JSON.stringify(extra));
}

function writeWholeZone(w: Writer, zone: Zone): void {
  writeZone(w, zone, true, true);
  writeNodes(w, zone, zone.nodes.keys());
}

function writeNodes(w: Writer, zone: Zone, keys: Iterable<string>): void {
  w.u8(OP_NODES);
  w.str(zone.name);
  const countAt = w.at;
  w.u32(0);
  let count = 0;
  for (const key of keys) {
    writeNode(w, zone, key);
    count++;
  }
  w.patchU32(countAt, count);
}

function writeZone(w: Writer, zone: Zone, fresh: boolean, chain: boolean): void {
  const signed = zone.signing !== null;
  w.u8(OP_ZONE);
  w.str(zone.name);
  w.u8((fresh ? ZONE_FRESH : 0) | (signed ? ZONE_SIGNED : 0) | (chain && signed ? ZONE_CHAIN : 0));
  w.str(JSON.stringify(zone.def));
  writeRRset(w, zone.negativeSoa);
  if (chain && signed) {
    w.u32(zone.chain.length);
    for (const key of zone.chain) w.str(key, 'latin1');
  }
}

function writeNode(w: Writer, zone: Zone, key: string): void {
  w.str(key, 'latin1');
  const node = zone.nodes.get(key);
  if (!node) return w.u8(0);
  w.u8(1);
  w.u8(node.owner ? 1 : 0);
  if (node.owner) {
    w.nullable(node.owner.domain);
    w.nullable(node.owner.accountId);
  }
  w.u16(node.rrsets.size);
  for (const rrset of node.rrsets.values()) writeRRset(w, rrset);
}

/**
 * The replica's side: installs one batch (or snapshot) in `index`, in one go, so no answer sees
 * half of it. Returns the `extra` the leader carried with it (undefined when none).
 */
export function applyIndexBatch(index: ZoneIndex, batch: ArrayBuffer): unknown {
  const r = new Reader(Buffer.from(batch));
  const flags = r.u8();
  const extraText = r.str();
  if (flags & FLAG_RESET) index.replicaReset();
  for (let op = r.u8(); op !== OP_END; op = r.u8()) {
    switch (op) {
      case OP_REMOVE_ZONE:
        index.replicaRemoveZone(r.str());
        break;
      case OP_SERIAL: {
        const zone = r.str();
        index.replicaSerial(zone, r.u32());
        break;
      }
      case OP_ZONE: {
        r.str(); // the name, also in the definition
        const zoneFlags = r.u8();
        const def = JSON.parse(r.str()) as ZoneDefinition;
        const negativeSoa = readRRset(r);
        let chain: string[] | null = null;
        if (zoneFlags & ZONE_CHAIN) {
          const n = r.u32();
          chain = new Array<string>(n);
          for (let i = 0; i < n; i++) chain[i] = r.str('latin1');
        }
        const state: ReplicaZone = {
          def,
          signed: (zoneFlags & ZONE_SIGNED) !== 0,
          negativeSoa,
          chain,
          fresh: (zoneFlags & ZONE_FRESH) !== 0,
        };
        index.replicaZone(state);
        break;
      }
      case OP_NODES: {
        const zone = r.str();
        for (let left = r.u32(); left > 0; left--) {
          const key = r.str('latin1');
          let state: ReplicaNode | null = null;
          if (r.u8() === 1) {
            const owner = r.u8() === 1 ? { domain: r.nullable(), accountId: r.nullable() } : null;
            const n = r.u16();
            const rrsets = new Array<RRset>(n);
            for (let i = 0; i < n; i++) rrsets[i] = readRRset(r);
            state = { rrsets, owner };
          }
          index.replicaNode(zone, key, state);
        }
        break;
      }
      default:
        throw new Error(`index batch: unknown operation ${op}`);
    }
  }
  return extraText === '' ? undefined : JSON.parse(extraText);
}
