/**
 * The in-memory authoritative data the DNS server answers from. Writers (the event
 * subscription) call putZone/setRRset/removeRRset/removeZone; each change is visible to the
 * next query. Answers are encoded once per (name, type) and cached per zone until the zone
 * changes, so the hot path copies bytes instead of encoding records.
 */
import * as dnsPacket from 'dns-packet';
import type { Answer } from 'dns-packet';
import { canonicalName, hostnameProblem, isAtOrBelow, parentOffset, wireKey, wireKeyToName } from './names';
import { isSupportedType, parseRecord, formatRecord, RawRdata, type RecordData } from './rdata';
import { Body, EMPTY_BODY, QTYPE, RCODE, buildResponse, parseQuery, type RcodeName, rcodeName } from './wire';
import {
  addProof,
  beginSigning,
  chainProofs,
  nodataProof,
  onlyDnssecLeft,
  resolveSigned,
  signApex,
  signChange,
  signNames,
  signNegativeSoa,
  unsignZone,
  type ZoneSigning,
} from './zone-signing';

export interface SoaFields {
  mname: string;
  rname: string;
  serial: number;
  refresh: number;
  retry: number;
  expire: number;
  minimum: number;
}

export interface ZoneDefinition {
  name: string;
  ownerAccountId: string | null;
  soa: SoaFields;
  /** TTL of the apex SOA and NS RRsets. */
  ttl: number;
  /** Apex NS targets; the apex NS RRset always comes from here. */
  nameservers: string[];
}

/** Who a name belongs to for analytics (a dynamic-DNS host inside a service zone, say). */
export interface RecordOwner {
  accountId: string | null;
  domain: string;
}

/** Attribution of an answer: the zone, and the longest owned name (host or zone) above the query. */
export interface AnswerOwner {
  zone: string | null;
  domain: string | null;
  accountId: string | null;
}

/** What the server sends for a (name, type): shared, immutable, keep no per-query state here. */
export interface Prepared extends AnswerOwner {
  body: Body;
  /** The query name when every query that gets this answer has the same one (saves the sink a decode). */
  name: string | null;
}

export interface LookupResult extends AnswerOwner {
  kind: 'answer' | 'nodata' | 'nxdomain' | 'referral' | 'refused';
  rcode: RcodeName;
  authoritative: boolean;
  answers: Answer[];
  authorities: Answer[];
  additionals: Answer[];
}

/** One RRset of an explained answer (presentation format). */
export interface ExplainedRRset {
  name: string;
  type: string;
  ttl: number;
  records: string[];
}

export interface Explained {
  rcode: RcodeName;
  answer: ExplainedRRset[];
  authority: ExplainedRRset[];
}

/** An RRset as the index holds it: records encoded from the type field on (owner written per message). Immutable once built. */
export interface EncodedRRset {
  type: number;
  ttl: number;
  encoded: Buffer[];
}

/**
 * A change of what a zone serves, for the transfer journal (IXFR) and NOTIFY
 * (libs/dns-transfer). `owner` is a wire key. A zone's SOA change (`zone`) closes the
 * changes before it; `created` marks a zone new to the index.
 */
export type IndexChange =
  | { kind: 'zone'; zone: string; serial: number; soa: EncodedRRset; created: boolean }
  | { kind: 'rrset'; zone: string; owner: string; before: EncodedRRset | null; after: EncodedRRset | null }
  | { kind: 'removed'; zone: string };

/** A zone's SOA and where it stands: what NOTIFY and the transfer cache need, without a walk of the zone. */
export interface ZoneVersion {
  zone: string;
  /** Wire key of the apex. */
  apex: string;
  serial: number;
  /**
   * Moves on every change of what the zone serves (a record, a signature, its SOA), serial or
   * not (signing a zone changes it before the serial moves): what was built from the contents
   * at one revision (a transfer's wire form) is the zone's as long as the revision is the same.
   */
  revision: number;
  soa: EncodedRRset;
}

/** Everything a zone serves, for a full transfer (AXFR): the apex SOA apart. */
export interface ZoneContents extends ZoneVersion {
  rrsets: Array<{ owner: string; rrset: EncodedRRset }>;
}

export interface RRset extends EncodedRRset {
  type: number;
  ttl: number;
  texts: string[];
  targets: string[];
  /** Each record encoded from its type field on; the owner name is written per response. */
  encoded: Buffer[];
  /** Its RRSIG records, encoded the same way, when the zone is signed (zone-signing.ts). */
  sigs: Buffer[];
}

export interface Node {
  key: string;
  rrsets: Map<number, RRset>;
  owner: AnswerOwner | null;
}

export interface Zone {
  name: string;
  key: string;
  def: ZoneDefinition;
  owner: AnswerOwner;
  nodes: Map<string, Node>;
  /** The index's change count when the zone last changed (ZoneContents.revision). */
  revision: number;
  /** Every name at or below which data exists (so empty non-terminals count), apex excluded. */
  existing: Map<string, number>;
  /** Non-apex names holding NS: delegation points. */
  cuts: Set<string>;
  negativeSoa: RRset;
  anyAnswer: RRset;
  cache: Map<string, Map<number, Prepared>>;
  /** Keys and signature window when the zone is signed (DNSSEC), else null. */
  signing: ZoneSigning | null;
  /** The NSEC chain: the signed zone's names in canonical order, the apex first. */
  chain: string[];
  /** Told of every DNSSEC-only RRset written (zone-signing.ts), for the index's observers. */
  signedChange?: (owner: string, before: RRset | undefined, after: RRset | undefined) => void;
  /** Told when `chain` changed (zone-signing.ts), for the index's tracker. */
  chainChanged?: () => void;
}

/**
 * Told which parts of the index changed (index-replica.ts ships them to the DNS threads that do
 * not fold the events themselves): names only, the state is read when it is shipped.
 */
export interface IndexTracker {
  /** The zone's definition, signing state or negative SOA. */
  zoneChanged(zone: string): void;
  /** A node's RRsets, their signatures or its owner: `key` is a wire key. */
  nodeChanged(zone: string, key: string): void;
  chainChanged(zone: string): void;
  zoneRemoved(zone: string): void;
  /** Only the serial of an unsigned zone moved: its apex SOA and negative SOA carry the new one (replicaSerial). */
  serialChanged(zone: string): void;
}

/** What a replica installs at one name (index-replica.ts). */
export interface ReplicaNode {
  rrsets: RRset[];
  owner: { domain: string | null; accountId: string | null } | null;
}

/** A zone as a replica installs it: `fresh` drops the names it held before. */
export interface ReplicaZone {
  def: ZoneDefinition;
  signed: boolean;
  negativeSoa: RRset;
  chain: string[] | null;
  fresh: boolean;
}

/**
 * Marks a replica's signed zone (answerSigned asks for `signing`): a replica installs the
 * signatures its leader made and never signs itself.
 */
const REPLICA_SIGNING: ZoneSigning = Object.freeze({
  dnskey: [],
  cds: [],
  cdnskey: [],
  keyTtl: 0,
  sign: () => {
    throw new Error('a replica index does not sign');
  },
  nsec: () => {
    throw new Error('a replica index does not sign');
  },
});

export type Placed = { owner: string | null; rrset: RRset };
interface Resolution {
  rcode: number;
  answer: Placed[];
  authority: Placed[];
}

const MAX_CNAME_CHAIN = 8;
const MAX_TTL = 2 ** 31 - 1;
// Cache slots for results that are not per-type answers.
const SLOT_NODATA = -1;
const SLOT_NXDOMAIN = -2;
const SLOT_REFERRAL = -3;
const QUESTION_POINTER = Buffer.from([0xc0, 0x0c]);
export const WILDCARD_LABEL = '\x01*';
const TYPE_NUMBERS = new Map<string, number>(Object.entries(QTYPE));
const COMMON_TYPES = new Set<number>(TYPE_NUMBERS.values());
const TYPE_NAMES = new Map<number, string>([...TYPE_NUMBERS].map(([n, t]) => [t, n]));
// dns-packet's per-RR encoder is public but missing from its type definitions.
const rrEncoder = (dnsPacket as unknown as { answer: { encode(a: Answer): Buffer; encodingLength(a: Answer): number } })
  .answer;

/** Longest data one record can carry: RDLENGTH is 16 bits (RFC 1035 §3.2.1). */
export const MAX_RDATA_BYTES = 0xffff;

/**
 * What one record of `owner` costs in a response, measured with the encoder the server
 * answers with: the owner name written out in full (as the index writes owners that are
 * not the question), type, class, TTL, RDLENGTH and the data. Throws an Error when the
 * record cannot be encoded at all (data over 65,535 bytes).
 */
export function recordWireSize(owner: string, type: string, data: RecordData): number {
  // Types dns-packet cannot encode carry their rdata already built (rdata-modern.ts).
  const raw = (data as unknown) instanceof RawRdata ? (data as unknown as RawRdata).rdata.length : null;
  const answer = { type, name: '.', ttl: 0, class: 'IN', data } as Answer;
  // The root owner is one byte, the fixed fields ten: the rest is the data.
  const rdata = raw ?? rrEncoder.encodingLength(answer) - 11;
  if (rdata > MAX_RDATA_BYTES)
    throw new Error(`its data is ${rdata.toLocaleString('en-US')} bytes; a DNS record holds at most 65,535`);
  return wireKey(canonicalName(owner)).length + 10 + rdata;
}

const REFUSED: Prepared = { body: EMPTY_BODY(RCODE.REFUSED), zone: null, domain: null, accountId: null, name: null };

/** Bounds the front cache: random names (an NXDOMAIN flood) refill it instead of growing it. */
const MAX_FRONT_ENTRIES = 100_000;

export class ZoneIndex {
  private readonly zones = new Map<string, Zone>();
  /** The same zones by canonical name: the feeder names a zone on every change. */
  private readonly byName = new Map<string, Zone>();
  /**
   * (key, qtype) → answer for the whole index, in front of the per-zone caches: a repeated
   * question costs one lookup by the query's own key instead of a walk up its labels. Any
   * change to the index empties it, since a new zone or record can change any answer.
   */
  private front = new Map<string, Map<number, Prepared>>();
  private frontEntries = 0;
  /** The same for DO=1 queries to signed zones (their denial proofs depend on the query name). */
  private frontSigned = new Map<string, Map<number, Prepared>>();
  private frontSignedEntries = 0;
  private changes = 0;
  private readonly observers: Array<(change: IndexChange) => void> = [];
  private tracker: IndexTracker | null = null;

  /** Tells `tracker` which zones and names change from now on (index-replica.ts). */
  track(tracker: IndexTracker): void {
    this.tracker = tracker;
  }

  /** Tells `observer` about every change of served data from now on (the transfer journal). */
  observe(observer: (change: IndexChange) => void): void {
    this.observers.push(observer);
  }

  private emit(change: IndexChange): void {
    for (const observer of this.observers) observer(change);
  }

  /** A zone's answers are stale: dropped (a new map only when there were any). */
  private static forgetZoneAnswers(zone: Zone): void {
    if (zone.cache.size > 0) zone.cache = new Map();
  }

  /** The zone's SOA, serial and revision; null when the index has no such zone. */
  zoneVersion(zoneName: string): ZoneVersion | null {
    const zone = this.zones.get(wireKey(canonicalName(zoneName)));
    if (!zone) return null;
    const soa = zone.nodes.get(zone.key)!.rrsets.get(QTYPE.SOA)!;
    return { zone: zone.name, apex: zone.key, serial: zone.def.soa.serial, revision: zone.revision, soa };
  }

  /** The zone's records as served now, for AXFR (a walk of the whole zone); null when the index has no such zone. */
  contents(zoneName: string): ZoneContents | null {
    const version = this.zoneVersion(zoneName);
    if (!version) return null;
    const zone = this.zones.get(version.apex)!;
    const rrsets: ZoneContents['rrsets'] = [];
    for (const node of zone.nodes.values()) {
      for (const rrset of node.rrsets.values()) if (rrset !== version.soa) rrsets.push({ owner: node.key, rrset });
    }
    return { ...version, rrsets };
  }

  /**
   * Moves on every change to the index: answers computed at another version may be stale
   * (the server's response cache keys its entries to it).
   */
  get version(): number {
    return this.changes;
  }

  putZone(def: ZoneDefinition): void {
    // Every batch of DDNS updates moves its zone's serial and nothing else (dns-index-feeder.ts
    // publishSerials): the SOA's bytes are patched rather than the zone rebuilt (decision 0128).
    const current = this.byName.get(def.name);
    if (current && onlySerialMoved(current, def)) return this.moveSerial(current, def.soa.serial);
    const name = canonicalName(def.name);
    const problem = hostnameProblem(name);
    if (problem) throw new Error(`zone name: ${problem}`);
    if (def.nameservers.length === 0) throw new Error(`zone ${name}: at least one nameserver is required`);
    const key = wireKey(name);
    const existing = this.zones.get(key);
    const soaData = {
      ...def.soa,
      mname: canonicalName(def.soa.mname),
      rname: canonicalName(def.soa.rname),
    };
    const soa = encodeRRset('SOA', def.ttl, [soaData]);
    // A new serial of an unsigned zone (once per batch of changes) keeps its NS and ANY answers.
    const kept =
      existing &&
      !existing.signing &&
      existing.def.ttl === def.ttl &&
      sameNames(existing.def.nameservers, def.nameservers)
        ? existing
        : null;
    const ns =
      kept?.nodes.get(kept.key)?.rrsets.get(QTYPE.NS) ??
      encodeRRset(
        'NS',
        def.ttl,
        def.nameservers.map((n) => parseRecord('NS', n)),
      );
    const zone: Zone = {
      name,
      key,
      def: { ...def, name },
      owner: { zone: name, domain: name, accountId: def.ownerAccountId },
      nodes: existing?.nodes ?? new Map(),
      revision: 0,
      existing: existing?.existing ?? new Map(),
      cuts: existing?.cuts ?? new Set(),
      negativeSoa: withTtl(soa, Math.min(def.ttl, def.soa.minimum)),
      anyAnswer: kept?.anyAnswer ?? encodeRRset('HINFO', def.ttl, [{ cpu: 'RFC8482', os: '' }]),
      cache: new Map(),
      signing: existing?.signing ?? null,
      chain: existing?.chain ?? [],
      signedChange: (owner, before, after) => {
        this.tracker?.nodeChanged(name, owner);
        if (this.observers.length > 0)
          this.emit({ kind: 'rrset', zone: name, owner, before: before ?? null, after: after ?? null });
      },
      chainChanged: () => this.tracker?.chainChanged(name),
    };
    const apex = zone.nodes.get(key) ?? { key, rrsets: new Map(), owner: null };
    apex.rrsets.set(QTYPE.SOA, soa);
    apex.rrsets.set(QTYPE.NS, ns);
    zone.nodes.set(key, apex);
    this.zones.set(key, zone);
    this.byName.set(name, zone);
    if (this.tracker) {
      if (!existing) this.tracker.zoneRemoved(name); // new: a replica drops any names it held under it
      this.tracker.zoneChanged(name);
      this.tracker.nodeChanged(name, key);
    }
    signApex(zone);
    this.changed(zone);
    if (!existing || existing.def.soa.serial !== def.soa.serial)
      this.emit({ kind: 'zone', zone: name, serial: def.soa.serial, soa, created: !existing });
  }

  /**
   * Signs the zone with these keys and window, re-signing everything (a key change, or signing
   * turned on), or with null strips every DNSSEC record from it. The apex and the NSEC chain at
   * once, then the other names `slice` at a time, yielding to the event loop between slices so
   * answers never wait for a whole zone's signatures (zone-signing.ts beginSigning says why
   * that is safe). Later changes are signed as they come. Resolves when every name is signed,
   * or early when the zone's signing is replaced meanwhile or the zone goes.
   */
  async setSigning(zoneName: string, signing: ZoneSigning | null, slice = 256): Promise<void> {
    const zone = this.requireZone(zoneName);
    zone.signing = signing;
    if (!signing) unsignZone(zone);
    const rest = signing ? beginSigning(zone) : [];
    this.resigned(zone);
    await this.signGradually(zone.key, signing, rest, true, slice);
  }

  /**
   * A new signature window with the same keys (a refresh): changes from now on are signed with
   * it at once, and the zone's names are re-signed `slice` at a time, as setSigning does.
   * Signatures not yet redone stay valid (a refresh comes days before they expire).
   */
  async refreshSigning(zoneName: string, signing: ZoneSigning, slice = 256): Promise<void> {
    const start = this.zones.get(wireKey(canonicalName(zoneName)));
    if (!start?.signing) return this.setSigning(zoneName, signing, slice);
    start.signing = signing;
    await this.signGradually(start.key, signing, [...start.nodes.keys()], false, slice);
  }

  private async signGradually(
    key: string,
    signing: ZoneSigning | null,
    names: string[],
    rebuildNsec: boolean,
    slice: number,
  ): Promise<void> {
    for (let at = 0; at < names.length; at += slice) {
      if (at > 0) await new Promise<void>((resolve) => setImmediate(resolve));
      const zone = this.zones.get(key);
      if (!zone || zone.signing !== signing) return;
      signNames(zone, names.slice(at, at + slice), rebuildNsec);
      this.resigned(zone);
    }
    const zone = this.zones.get(key);
    if (zone?.signing === signing && signing && !rebuildNsec) {
      signNegativeSoa(zone);
      this.resigned(zone);
    }
  }

  private resigned(zone: Zone): void {
    zone.cache = new Map();
    this.tracker?.zoneChanged(zone.name);
    this.changed(zone);
  }

  isSigned(zoneName: string): boolean {
    return this.zones.get(wireKey(canonicalName(zoneName)))?.signing != null;
  }

  removeZone(name: string): void {
    if (!this.zones.delete(wireKey(canonicalName(name)))) return;
    this.byName.delete(canonicalName(name));
    this.tracker?.zoneRemoved(canonicalName(name));
    this.changed();
    this.emit({ kind: 'removed', zone: canonicalName(name) });
  }

  hasZone(name: string): boolean {
    return this.zones.has(wireKey(canonicalName(name)));
  }

  zoneNames(): string[] {
    return [...this.zones.values()].map((z) => z.name);
  }

  /**
   * Replaces one RRset. `ownerName` is relative to the zone ("" or "@" for the apex, "www",
   * "*.dyn"), or absolute with a trailing dot. Empty `records` removes the RRset. The apex NS
   * RRset comes from the zone definition, so setting it here is ignored. `owner` attributes
   * queries at and below this name (a dynamic-DNS host); null clears it, undefined keeps it.
   */
  setRRset(
    zoneName: string,
    ownerName: string,
    type: string,
    ttl: number,
    records: string[],
    owner?: RecordOwner | null,
  ): void {
    const zone = this.requireZone(zoneName);
    const key = ownerKeyIn(zone, ownerName);
    const typeName = type.toUpperCase();
    if (!isSupportedType(typeName)) throw new Error(`type ${type} is not served`);
    if (records.length === 0) return this.removeRRset(zoneName, ownerName, type);
    if (!Number.isInteger(ttl) || ttl < 0 || ttl > MAX_TTL) throw new Error(`ttl must be an integer 0-${MAX_TTL}`);
    const atApex = key === zone.key;
    if (atApex && typeName === 'NS') return;
    if (atApex && typeName === 'CNAME') throw new Error(`${wireKeyToName(key)}: a CNAME cannot be at the zone apex`);

    const unique = new Map<string, RecordData>();
    for (const text of records) {
      const data = parseRecord(typeName, text);
      unique.set(formatRecord(typeName, data), data);
    }
    if (typeName === 'CNAME' && unique.size !== 1)
      throw new Error(`${wireKeyToName(key)}: a CNAME RRset has exactly one record`);

    const typeNumber = TYPE_NUMBERS.get(typeName)!;
    const node = zone.nodes.get(key);
    if (node) {
      if (
        typeName === 'CNAME' &&
        [...node.rrsets.keys()].some((t) => t !== typeNumber && t !== QTYPE.RRSIG && t !== QTYPE.NSEC)
      )
        throw new Error(`${wireKeyToName(key)}: a CNAME cannot coexist with other records`);
      if (typeName !== 'CNAME' && node.rrsets.has(QTYPE.CNAME))
        throw new Error(`${wireKeyToName(key)}: has a CNAME, which cannot coexist with ${typeName}`);
    }
    const target = node ?? { key, rrsets: new Map(), owner: null };
    const before = target.rrsets.get(typeNumber) ?? null;
    const after = encodeRRset(typeName, ttl, [...unique.values()], [...unique.keys()]);
    target.rrsets.set(typeNumber, after);
    if (owner !== undefined && !sameOwner(target.owner, zone, owner))
      target.owner = owner && { zone: zone.name, domain: canonicalName(owner.domain), accountId: owner.accountId };
    if (!node) {
      zone.nodes.set(key, target);
      countExisting(zone, key, 1);
    }
    const newCut = typeNumber === QTYPE.NS && !zone.cuts.has(key);
    if (typeNumber === QTYPE.NS) zone.cuts.add(key);
    signChange(zone, key, typeNumber, newCut);
    this.tracked(zone, key);
    ZoneIndex.forgetZoneAnswers(zone);
    this.changed(zone);
    if (this.observers.length > 0) this.emit({ kind: 'rrset', zone: zone.name, owner: key, before, after });
  }

  removeRRset(zoneName: string, ownerName: string, type: string): void {
    const zone = this.zones.get(wireKey(canonicalName(zoneName)));
    if (!zone) return;
    const key = ownerKeyIn(zone, ownerName);
    const typeNumber = TYPE_NUMBERS.get(type.toUpperCase());
    const node = zone.nodes.get(key);
    if (
      !node ||
      typeNumber === undefined ||
      (key === zone.key && (typeNumber === QTYPE.NS || typeNumber === QTYPE.SOA))
    )
      return;
    const before = node.rrsets.get(typeNumber);
    if (!before || !node.rrsets.delete(typeNumber)) return;
    if (typeNumber === QTYPE.NS) zone.cuts.delete(key);
    if (onlyDnssecLeft(node)) {
      // Its signatures and NSEC go with it.
      for (const rrset of node.rrsets.values()) zone.signedChange?.(key, rrset, undefined);
      zone.nodes.delete(key);
      countExisting(zone, key, -1);
    }
    signChange(zone, key, typeNumber, typeNumber === QTYPE.NS);
    this.tracked(zone, key);
    ZoneIndex.forgetZoneAnswers(zone);
    this.changed(zone);
    if (this.observers.length > 0) this.emit({ kind: 'rrset', zone: zone.name, owner: key, before, after: null });
  }

  /** A name changed: a signed zone's negative SOA may have been re-signed with it (a new delegation). */
  private tracked(zone: Zone, key: string): void {
    if (!this.tracker) return;
    this.tracker.nodeChanged(zone.name, key);
    if (zone.signing) this.tracker.zoneChanged(zone.name);
  }

  /** The zone as the index holds it, for index-replica.ts to ship (read only). */
  zoneState(name: string): Zone | undefined {
    return this.byName.get(name);
  }

  /** A replica: drops every zone (a snapshot from its leader follows). */
  replicaReset(): void {
    this.zones.clear();
    this.byName.clear();
    this.changed();
  }

  replicaRemoveZone(name: string): void {
    const zone = this.byName.get(name);
    if (!zone) return;
    this.zones.delete(zone.key);
    this.byName.delete(name);
    this.changed();
  }

  /** A replica: the zone's definition, signing state and negative SOA as its leader has them. */
  replicaZone(state: ReplicaZone): void {
    const name = state.def.name;
    const existing = state.fresh ? undefined : this.byName.get(name);
    const key = existing?.key ?? wireKey(name);
    const anyAnswer =
      existing && existing.def.ttl === state.def.ttl
        ? existing.anyAnswer
        : encodeRRset('HINFO', state.def.ttl, [{ cpu: 'RFC8482', os: '' }]);
    const zone: Zone = existing ?? {
      name,
      key,
      def: state.def,
      owner: { zone: name, domain: name, accountId: state.def.ownerAccountId },
      nodes: new Map(),
      revision: 0,
      existing: new Map(),
      cuts: new Set(),
      negativeSoa: state.negativeSoa,
      anyAnswer,
      cache: new Map(),
      signing: null,
      chain: [],
    };
    if (existing && existing.def.ownerAccountId !== state.def.ownerAccountId)
      zone.owner = { zone: name, domain: name, accountId: state.def.ownerAccountId };
    zone.def = state.def;
    zone.negativeSoa = state.negativeSoa;
    zone.anyAnswer = anyAnswer;
    zone.signing = state.signed ? REPLICA_SIGNING : null;
    if (state.chain) zone.chain = state.chain;
    else if (!state.signed) zone.chain = [];
    this.zones.set(key, zone);
    this.byName.set(name, zone);
    zone.cache = new Map();
    this.changed(zone);
  }

  /** A replica: the zone's serial moved and nothing else (IndexTracker.serialChanged). */
  replicaSerial(zoneName: string, serial: number): void {
    const zone = this.byName.get(zoneName);
    if (zone) this.moveSerial(zone, serial);
  }

  /**
   * A new serial for an unsigned zone whose definition is otherwise the same: the apex SOA and
   * the negative SOA are copied with the serial field rewritten (the bytes a new encoding would
   * give), the rest of the zone is kept. A replica does the same from the serial alone, so a
   * batch ships the serial rather than the zone's definition, negative SOA and apex.
   */
  private moveSerial(zone: Zone, serial: number): void {
    const apex = zone.nodes.get(zone.key);
    const before = apex?.rrsets.get(QTYPE.SOA);
    if (!apex || !before) return;
    const soa = withSerial(before, serial);
    zone.def = { ...zone.def, soa: { ...zone.def.soa, serial } };
    apex.rrsets.set(QTYPE.SOA, soa);
    zone.negativeSoa = withSerial(zone.negativeSoa, serial);
    this.tracker?.serialChanged(zone.name);
    ZoneIndex.forgetZoneAnswers(zone);
    this.changed(zone);
    this.emit({ kind: 'zone', zone: zone.name, serial, soa, created: false });
  }

  /** A replica: the name's RRsets and owner as its leader has them; null when the name is gone. */
  replicaNode(zoneName: string, key: string, state: ReplicaNode | null): void {
    const zone = this.byName.get(zoneName);
    if (!zone) return;
    const had = zone.nodes.get(key);
    if (state && state.rrsets.length > 0) {
      // The node and its map reused (a DDNS update replaces one RRset of a name that stays).
      const node = had ?? { key, rrsets: new Map<number, RRset>(), owner: null };
      node.rrsets.clear();
      for (const r of state.rrsets) node.rrsets.set(r.type, r);
      const owner = state.owner;
      if (!owner) node.owner = null;
      else if (!node.owner || node.owner.domain !== owner.domain || node.owner.accountId !== owner.accountId)
        node.owner = { zone: zone.name, domain: owner.domain, accountId: owner.accountId };
      if (!had) {
        zone.nodes.set(key, node);
        countExisting(zone, key, 1);
      }
      if (key !== zone.key && node.rrsets.has(QTYPE.NS)) zone.cuts.add(key);
      else zone.cuts.delete(key);
    } else if (had) {
      zone.nodes.delete(key);
      countExisting(zone, key, -1);
      zone.cuts.delete(key);
    } else return;
    ZoneIndex.forgetZoneAnswers(zone);
    this.changed(zone);
  }

  /** The records at one name, as presentation text, for tests and diagnostics. */
  rrsets(zoneName: string, ownerName: string): Array<{ type: string; ttl: number; records: string[] }> {
    const zone = this.requireZone(zoneName);
    const node = zone.nodes.get(ownerKeyIn(zone, ownerName));
    if (!node) return [];
    const names = new Map([...TYPE_NUMBERS].map(([n, t]) => [t, n]));
    return [...node.rrsets.values()].map((r) => ({ type: names.get(r.type)!, ttl: r.ttl, records: r.texts }));
  }

  /** Structured answer for a name and type, exactly as the server would send it. */
  lookup(qname: string, qtype: string | number, dnssecOk = false): LookupResult {
    const type =
      typeof qtype === 'number'
        ? qtype
        : (TYPE_NUMBERS.get(qtype.toUpperCase()) ?? Number(qtype.replace(/^TYPE/i, '')));
    if (!Number.isInteger(type) || type < 0 || type > 0xffff) throw new Error(`unknown type ${qtype}`);
    // Encoded as A, then the type is patched in: dns-packet only encodes type names it knows.
    const request = dnsPacket.encode({
      type: 'query',
      id: 0,
      questions: [{ name: qname.trim().replace(/\.$/, '') || '.', type: 'A' }],
    });
    request.writeUInt16BE(type, request.length - 4);
    const parsed = parseQuery(request);
    if (!parsed.ok) throw new Error(`cannot look up "${qname}"`);
    const prepared = dnssecOk ? this.answerSigned(parsed.query.key, type) : this.answer(parsed.query.key, type);
    const response = dnsPacket.decode(buildResponse(request, parsed.query, prepared.body, 0xffff));
    const { body } = prepared;
    const answers = response.answers ?? [];
    const kind: LookupResult['kind'] =
      body.rcode === RCODE.REFUSED
        ? 'refused'
        : body.rcode === RCODE.NXDOMAIN
          ? 'nxdomain'
          : !body.authoritative
            ? 'referral'
            : answers.length > 0
              ? 'answer'
              : 'nodata';
    return {
      kind,
      rcode: rcodeName(body.rcode),
      authoritative: body.authoritative,
      zone: prepared.zone,
      domain: prepared.domain,
      accountId: prepared.accountId,
      answers,
      authorities: response.authorities ?? [],
      additionals: response.additionals ?? [],
    };
  }

  /** Hot path: the prepared answer for a lowercased wire key (see names.ts) and a type. */
  answer(key: string, qtype: number): Prepared {
    const known = this.front.get(key)?.get(qtype);
    if (known) return known;
    const prepared = this.resolve(key, qtype);
    if (this.frontEntries >= MAX_FRONT_ENTRIES) this.forgetAnswers();
    let types = this.front.get(key);
    if (!types) this.front.set(key, (types = new Map()));
    types.set(qtype, prepared);
    this.frontEntries++;
    return prepared;
  }

  /**
   * A DO=1 query: in a signed zone the answer with RRSIGs and NSEC proofs, else the same as
   * answer(). Kept apart so DO=0 queries and unsigned zones pay nothing for DNSSEC.
   */
  answerSigned(key: string, qtype: number): Prepared {
    const known = this.frontSigned.get(key)?.get(qtype);
    if (known) return known;
    const zone = this.zoneOf(key);
    if (!zone?.signing || qtype === QTYPE.AXFR || qtype === QTYPE.IXFR) return this.answer(key, qtype);
    const prepared = resolveSigned(zone, key, qtype);
    // A flood of random DO=1 names refills this cache only, not the DO=0 one.
    if (this.frontSignedEntries >= MAX_FRONT_ENTRIES) {
      this.frontSigned = new Map();
      this.frontSignedEntries = 0;
    }
    let types = this.frontSigned.get(key);
    if (!types) this.frontSigned.set(key, (types = new Map()));
    types.set(qtype, prepared);
    this.frontSignedEntries++;
    return prepared;
  }

  /** After a change (of `zone`'s contents when given): no answer computed before it may be served again. */
  private changed(zone?: Zone): void {
    this.changes++;
    if (zone) zone.revision = this.changes;
    this.forgetAnswers();
  }

  private forgetAnswers(): void {
    if (this.frontSignedEntries > 0) {
      this.frontSigned = new Map();
      this.frontSignedEntries = 0;
    }
    if (this.frontEntries === 0) return;
    this.front = new Map();
    this.frontEntries = 0;
  }

  private resolve(key: string, qtype: number): Prepared {
    const zone = this.zoneOf(key);
    const route = routeOf(zone, key, qtype);
    switch (route.kind) {
      case 'refused':
        return REFUSED;
      case 'referral':
        return this.cached(zone!, route.cut, SLOT_REFERRAL, () =>
          prepare(zone!, ownerOf(zone!, route.cut), referral(zone!, route.cut)),
        );
      case 'nxdomain':
        return this.negative(zone!, route.key, SLOT_NXDOMAIN);
      case 'nodata':
        return this.negative(zone!, route.key, SLOT_NODATA);
      case 'node': {
        const { node } = route;
        const hit = zone!.cache.get(node.key)?.get(qtype);
        if (hit) return hit;
        const build = () =>
          prepare(
            zone!,
            ownerOf(zone!, node.key),
            resolveAt(zone!, node, qtype),
            node.key.startsWith(WILDCARD_LABEL) ? null : wireKeyToName(node.key),
          );
        // Unusual types at a CNAME are answered but not cached, so the cache stays bounded.
        return node.rrsets.has(qtype) || qtype === QTYPE.ANY || COMMON_TYPES.has(qtype)
          ? this.cached(zone!, node.key, qtype, build)
          : build();
      }
    }
  }

  /**
   * What the server answers for a name and type, as RRsets in presentation format (the
   * history API's `resolve`): the same route and resolution as `answer`, before encoding.
   * DNSSEC records are left out (DO=0). `name` of each RRset is fully qualified, no trailing dot.
   */
  explain(qname: string, qtype: string): Explained {
    const name = canonicalName(qname);
    const type = TYPE_NUMBERS.get(qtype.toUpperCase());
    if (type === undefined) throw new Error(`unknown type ${qtype}`);
    const key = wireKey(name);
    const zone = this.zoneOf(key);
    const route = routeOf(zone, key, type);
    if (route.kind === 'refused') return { rcode: 'REFUSED', answer: [], authority: [] };
    const z = zone!;
    const res: Resolution =
      route.kind === 'referral'
        ? referral(z, route.cut)
        : route.kind === 'node'
          ? resolveAt(z, route.node, type)
          : {
              rcode: route.kind === 'nxdomain' ? RCODE.NXDOMAIN : RCODE.NOERROR,
              answer: [],
              authority: [{ owner: z.key, rrset: z.negativeSoa }],
            };
    const shown = ({ owner, rrset }: Placed): ExplainedRRset => ({
      name: owner === null ? name : wireKeyToName(owner),
      type: TYPE_NAMES.get(rrset.type)!,
      ttl: rrset.ttl,
      records: rrset.type === QTYPE.SOA ? [soaText(z.def.soa)] : rrset === z.anyAnswer ? ['"RFC8482" ""'] : rrset.texts,
    });
    return { rcode: rcodeName(res.rcode), answer: res.answer.map(shown), authority: res.authority.map(shown) };
  }

  /** NXDOMAIN/NODATA bodies only differ by attribution, so they are cached per owning name. */
  private negative(zone: Zone, key: string, slot: number): Prepared {
    const owned = ownedAncestor(zone, key);
    return this.cached(zone, owned?.key ?? zone.key, slot, () =>
      prepare(zone, owned?.owner ?? zone.owner, {
        rcode: slot === SLOT_NXDOMAIN ? RCODE.NXDOMAIN : RCODE.NOERROR,
        answer: [],
        authority: [{ owner: zone.key, rrset: zone.negativeSoa }],
      }),
    );
  }

  private cached(zone: Zone, key: string, slot: number, build: () => Prepared): Prepared {
    let slots = zone.cache.get(key);
    if (!slots) zone.cache.set(key, (slots = new Map()));
    let prepared = slots.get(slot);
    if (!prepared) slots.set(slot, (prepared = build()));
    return prepared;
  }

  private zoneOf(key: string): Zone | undefined {
    for (let at = 0; at >= 0 && at < key.length; at = parentOffset(key, at)) {
      const zone = this.zones.get(at === 0 ? key : key.slice(at));
      if (zone) return zone;
    }
    return undefined;
  }

  private requireZone(name: string): Zone {
    const zone = this.byName.get(name) ?? this.zones.get(wireKey(canonicalName(name)));
    if (!zone) throw new Error(`zone ${name} is not in the index`);
    return zone;
  }
}

/** Where a question goes in a zone: the one place the answer kinds are told apart. */
type Route =
  | { kind: 'refused' }
  | { kind: 'referral'; cut: string }
  | { kind: 'nxdomain'; key: string }
  | { kind: 'nodata'; key: string }
  | { kind: 'node'; node: Node };

function routeOf(zone: Zone | undefined, key: string, qtype: number): Route {
  if (!zone || qtype === QTYPE.AXFR || qtype === QTYPE.IXFR) return { kind: 'refused' };
  const cut = zone.cuts.size > 0 ? highestCut(zone, key) : null;
  if (cut !== null && !(cut === key && qtype === QTYPE.DS)) return { kind: 'referral', cut };
  const node = zone.nodes.get(key) ?? (zone.existing.has(key) ? null : wildcardFor(zone, key));
  if (node === undefined) return { kind: 'nxdomain', key: closestEncloser(zone, key) };
  if (node === null) return { kind: 'nodata', key };
  if (!node.rrsets.has(qtype) && !node.rrsets.has(QTYPE.CNAME) && qtype !== QTYPE.ANY)
    return { kind: 'nodata', key: node.key };
  return { kind: 'node', node };
}

const soaText = (soa: SoaFields) =>
  `${canonicalName(soa.mname)}. ${canonicalName(soa.rname)}. ${soa.serial >>> 0} ${soa.refresh} ${soa.retry} ${soa.expire} ${soa.minimum}`;

/**
 * The wire key of an owner name in `zone`. A name the zone already holds was checked when it
 * came in: a change to it (every DDNS update) skips the label checks.
 */
function ownerKeyIn(zone: Zone, ownerName: string): string {
  const raw = ownerName.trim();
  const name =
    raw === '' || raw === '@'
      ? zone.name
      : raw.endsWith('.')
        ? canonicalName(raw)
        : `${canonicalName(raw)}.${zone.name}`;
  const key = wireKey(name);
  if (zone.nodes.has(key)) return key;
  const problem = hostnameProblem(name, { wildcard: true });
  if (problem) throw new Error(`owner name: ${problem}`);
  if (!isAtOrBelow(key, zone.key)) throw new Error(`owner name ${name} is not in zone ${zone.name}`);
  return key;
}

/** Whether a node's attribution is already `owner` (a DDNS update keeps its host's): no new object then. */
const sameOwner = (current: Node['owner'], zone: Zone, owner: RecordOwner | null): boolean =>
  owner === null
    ? current === null
    : current !== null &&
      current.zone === zone.name &&
      current.domain === owner.domain &&
      current.accountId === owner.accountId;

const sameNames = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((n, i) => n === b[i]);

function countExisting(zone: Zone, key: string, delta: 1 | -1): void {
  for (let at = 0; key.length - at > zone.key.length; at = parentOffset(key, at)) {
    const suffix = key.slice(at);
    const count = (zone.existing.get(suffix) ?? 0) + delta;
    if (count > 0) zone.existing.set(suffix, count);
    else zone.existing.delete(suffix);
  }
}

/** Ancestors of `key` from itself up to (not including) the apex. */
function* below(zone: Zone, key: string): Generator<string> {
  for (let at = 0; key.length - at > zone.key.length; at = parentOffset(key, at)) yield at === 0 ? key : key.slice(at);
}

export function highestCut(zone: Zone, key: string): string | null {
  let cut: string | null = null;
  for (const name of below(zone, key)) if (zone.cuts.has(name)) cut = name;
  return cut;
}

/** The closest existing ancestor of a name that does not exist (RFC 4592 §3.3.1). */
export function closestEncloser(zone: Zone, key: string): string {
  for (const name of below(zone, key)) if (name !== key && zone.existing.has(name)) return name;
  return zone.key;
}

export function wildcardFor(zone: Zone, key: string): Node | undefined {
  return zone.nodes.get(WILDCARD_LABEL + closestEncloser(zone, key));
}

/** The nearest node at or above `key` that carries an owner (a dynamic-DNS host, say). */
function ownedAncestor(zone: Zone, key: string): Node | null {
  for (const name of below(zone, key)) {
    const node = zone.nodes.get(name);
    if (node?.owner) return node;
  }
  return null;
}

export const ownerOf = (zone: Zone, key: string): AnswerOwner => ownedAncestor(zone, key)?.owner ?? zone.owner;

/** Answer at an existing node, following a CNAME chain inside the zone. */
export function resolveAt(zone: Zone, start: Node, qtype: number, signed = false): Resolution {
  const result: Resolution = { rcode: RCODE.NOERROR, answer: [], authority: [] };
  const visited = new Set<string>();
  let node: Node = start;
  let owner: string | null = null;
  for (;;) {
    const cname = node.rrsets.get(QTYPE.CNAME);
    if (qtype === QTYPE.ANY) {
      // RFC 8482: one small RRset instead of everything at the name.
      result.answer.push({ owner, rrset: cname ?? zone.anyAnswer });
      return result;
    }
    // A CNAME's own NSEC and RRSIG are asked for by name (RFC 4035 §2.5), not followed.
    if (!cname || qtype === QTYPE.CNAME || node.rrsets.has(qtype)) {
      const rrset = node.rrsets.get(qtype);
      if (rrset) result.answer.push({ owner, rrset });
      else {
        result.authority.push({ owner: zone.key, rrset: zone.negativeSoa });
        if (signed) addProof(result.authority, nodataProof(zone, node));
      }
      return result;
    }
    result.answer.push({ owner, rrset: cname });
    visited.add(owner ?? node.key);
    const target = wireKey(cname.targets[0]);
    if (visited.has(target) || visited.size >= MAX_CNAME_CHAIN || !isAtOrBelow(target, zone.key)) return result;
    if (zone.cuts.size > 0 && highestCut(zone, target) !== null) return result;
    const next = zone.nodes.get(target) ?? (zone.existing.has(target) ? null : wildcardFor(zone, target));
    if (signed) for (const proof of chainProofs(zone, target, next)) addProof(result.authority, proof);
    if (!next) {
      if (next === undefined) result.rcode = RCODE.NXDOMAIN;
      result.authority.push({ owner: zone.key, rrset: zone.negativeSoa });
      return result;
    }
    node = next;
    owner = target;
  }
}

/** Not authoritative below a delegation: the NS RRset and whatever glue the zone holds. */
export function referral(zone: Zone, cut: string): Resolution & { additional: Placed[] } {
  const ns = zone.nodes.get(cut)!.rrsets.get(QTYPE.NS)!;
  const additional: Placed[] = [];
  for (const host of ns.targets) {
    const key = wireKey(host);
    const glue = isAtOrBelow(key, zone.key) ? zone.nodes.get(key) : undefined;
    for (const type of [QTYPE.A, QTYPE.AAAA]) {
      const rrset = glue?.rrsets.get(type);
      if (rrset) additional.push({ owner: key, rrset });
    }
  }
  return { rcode: RCODE.NOERROR, answer: [], authority: [{ owner: cut, rrset: ns }], additional };
}

export function prepare(
  zone: Zone,
  owner: AnswerOwner,
  res: Resolution & { additional?: Placed[] },
  name: string | null = null,
  signed = false,
): Prepared {
  const parts: Buffer[] = [];
  const rrsets: Body['rrsets'] = [];
  const counts: Body['counts'] = [0, 0, 0];
  let size = 0;
  const sections: Array<[0 | 1 | 2, Placed[]]> = [
    [0, res.answer],
    [1, res.authority],
    [2, res.additional ?? []],
  ];
  for (const [section, placed] of sections) {
    for (const { owner: ownerKey, rrset } of placed) {
      const ownerBytes = ownerKey === null ? QUESTION_POINTER : Buffer.from(ownerKey, 'latin1');
      const records = signed && rrset.sigs.length > 0 ? [...rrset.encoded, ...rrset.sigs] : rrset.encoded;
      for (const record of records) {
        parts.push(ownerBytes, record);
        size += ownerBytes.length + record.length;
      }
      counts[section] += records.length;
      // An RRset and its signatures are truncated together.
      rrsets.push({ end: size, section, count: records.length });
    }
  }
  const authoritative = !res.additional;
  return {
    body: { rcode: res.rcode, authoritative, bytes: Buffer.concat(parts, size), counts, rrsets },
    zone: zone.name,
    domain: owner.domain,
    accountId: owner.accountId,
    name,
  };
}

// dns-packet's rdata encoders for addresses (RDLENGTH, then the address), public but missing from its type definitions.
const addressEncoders = dnsPacket as unknown as Record<
  'a' | 'aaaa',
  { encode(host: string, buf: Buffer, at: number): Buffer }
>;

/**
 * An A or AAAA record from its type field on, written in one buffer: what every DDNS update
 * encodes, so without the general encoder's owner byte cut off afterwards (a second buffer
 * object per record). The same bytes (zone-index.spec.ts).
 */
function addressRecord(type: 'A' | 'AAAA', ttl: number, address: string): Buffer {
  const v4 = type === 'A';
  const out = Buffer.allocUnsafe(v4 ? 14 : 26);
  out.writeUInt16BE(v4 ? QTYPE.A : QTYPE.AAAA, 0);
  out.writeUInt16BE(1, 2); // IN
  out.writeUInt32BE(ttl, 4);
  addressEncoders[v4 ? 'a' : 'aaaa'].encode(address, out, 8);
  return out;
}

/**
 * Shared by every RRset that has none: the index keeps one RRset per name and type, and a DDNS
 * update replaces one, so each array it holds is an object that outlives the young generation.
 * Never written to (signing assigns a new array).
 */
const NONE = Object.freeze([]) as unknown as never[];

function encodeRRset(type: string, ttl: number, records: unknown[], formatted?: string[]): RRset {
  const encoded = records.map((data) =>
    data instanceof RawRdata
      ? rawRecord(TYPE_NUMBERS.get(type)!, ttl, data.rdata)
      : (type === 'A' || type === 'AAAA') && typeof data === 'string'
        ? addressRecord(type, ttl, data)
        : // Encoded with the root as owner (one zero byte), which is then cut off.
          rrEncoder.encode({ type, name: '.', ttl, class: 'IN', data } as Answer).subarray(1),
  );
  // Addresses name no other owner (targets serve CNAME, NS, MX, SRV).
  const targets =
    type === 'A' || type === 'AAAA'
      ? NONE
      : records.map((d) =>
          d instanceof RawRdata
            ? d.target
            : typeof d === 'string'
              ? d
              : ((d as { exchange?: string; target?: string }).exchange ?? (d as { target?: string }).target ?? ''),
        );
  const texts =
    type === 'SOA' || type === 'HINFO' ? [] : (formatted ?? records.map((d) => formatRecord(type, d as RecordData)));
  return { type: TYPE_NUMBERS.get(type)!, ttl, texts, targets, encoded, sigs: NONE };
}

/** The same records with another TTL (the negative SOA): the bytes copied and the TTL field rewritten, not encoded again. */
function withTtl(rrset: RRset, ttl: number): RRset {
  const encoded = rrset.encoded.map((record) => {
    const copy = Buffer.from(record);
    copy.writeUInt32BE(ttl, 4);
    return copy;
  });
  return { ...rrset, ttl, encoded, sigs: NONE };
}

/** SOA records with another serial: the bytes copied and the serial (the first of the rdata's last five fields) rewritten. */
function withSerial(rrset: RRset, serial: number): RRset {
  const encoded = rrset.encoded.map((record) => {
    const copy = Buffer.from(record);
    copy.writeUInt32BE(serial >>> 0, copy.length - 20);
    return copy;
  });
  return { ...rrset, encoded, sigs: NONE };
}

/**
 * Whether `def` differs from the unsigned zone's definition by its serial alone (a signed zone's
 * SOA is signed again with it: putZone's whole path).
 */
function onlySerialMoved(zone: Zone, def: ZoneDefinition): boolean {
  const was = zone.def;
  return (
    zone.signing === null &&
    was.name === def.name &&
    was.soa.serial !== def.soa.serial &&
    was.ttl === def.ttl &&
    was.ownerAccountId === def.ownerAccountId &&
    was.soa.mname === def.soa.mname &&
    was.soa.rname === def.soa.rname &&
    was.soa.refresh === def.soa.refresh &&
    was.soa.retry === def.soa.retry &&
    was.soa.expire === def.soa.expire &&
    was.soa.minimum === def.soa.minimum &&
    sameNames(was.nameservers, def.nameservers)
  );
}

/** An RR from its type field on, for rdata built outside dns-packet (rdata-modern.ts, the signer's records). */
export function rawRecord(type: number, ttl: number, rdata: Buffer): Buffer {
  const head = Buffer.alloc(10);
  head.writeUInt16BE(type, 0);
  head.writeUInt16BE(1, 2);
  head.writeUInt32BE(ttl, 4);
  head.writeUInt16BE(rdata.length, 8);
  return Buffer.concat([head, rdata]);
}
