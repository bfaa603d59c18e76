/**
 * The signed side of a zone in the index (DNSSEC, issue 29): RRSIGs beside every
 * authoritative RRset, the NSEC chain over the zone's names in canonical order, the apex
 * DNSKEY/CDS/CDNSKEY RRsets, and the answers to DO=1 queries with their proofs.
 *
 * Everything signed lives in the zone's nodes as RRsets (types RRSIG, NSEC, DNSKEY, CDS,
 * CDNSKEY), so whatever walks the index (a zone transfer) sees the complete signed zone.
 * Each RRset also keeps its own signatures (`sigs`) so an answer adds them without a search.
 * Changes are incremental: a changed RRset is re-signed, and a name that appears or goes
 * away changes its own NSEC and its predecessor's. The keys and the signature window come
 * from outside (ZoneSigning), so this file holds no key material and reads no clock.
 */
import { parentOffset, wireKeyToName } from './names';
import { QTYPE, RCODE } from './wire';
import type { Placed, Prepared, RRset, Node, Zone } from './zone-index';
import {
  closestEncloser,
  highestCut,
  ownerOf,
  prepare,
  rawRecord,
  referral,
  resolveAt,
  wildcardFor,
  WILDCARD_LABEL,
} from './zone-index';

/** What the DNSSEC side (libs/dnssec) gives a zone to sign with. */
export interface ZoneSigning {
  /** Apex DNSKEY rdatas (every published key). */
  dnskey: Buffer[];
  /** CDS/CDNSKEY rdatas to publish (empty for none; the delete forms while unsigning). */
  cds: Buffer[];
  cdnskey: Buffer[];
  /** TTL of the DNSKEY, CDS and CDNSKEY RRsets. */
  keyTtl: number;
  /** RRSIG rdatas over one RRset: owner as wire bytes, type, original TTL, each record's rdata. */
  sign(owner: Buffer, type: number, ttl: number, rdatas: Buffer[]): Buffer[];
  /** NSEC rdata for `next` (wire bytes) and the types present. */
  nsec(next: Buffer, types: number[]): Buffer;
}

/** Types only signing puts in a zone: removed again when it is unsigned. */
const SIGNED_ONLY = [QTYPE.RRSIG, QTYPE.NSEC, QTYPE.DNSKEY, QTYPE.CDS, QTYPE.CDNSKEY];
const DNSSEC_META = new Set<number>([QTYPE.RRSIG, QTYPE.NSEC]);

/** True when a node holds nothing but signatures and NSEC (its data is gone). */
export const onlyDnssecLeft = (node: Node): boolean => [...node.rrsets.keys()].every((t) => DNSSEC_META.has(t));

// ---------------------------------------------------------------- canonical order

const labelsOf = (key: string): string[] => {
  const labels: string[] = [];
  for (let at = 0; at >= 0 && key.charCodeAt(at) !== 0; at = parentOffset(key, at))
    labels.push(key.slice(at + 1, at + 1 + key.charCodeAt(at)));
  return labels.reverse();
};

/** RFC 4034 §6.1 on lowercase wire keys: label by label from the right, octets compared. */
export function canonicalCompare(a: string, b: string): number {
  if (a === b) return 0;
  const la = labelsOf(a);
  const lb = labelsOf(b);
  for (let i = 0; i < Math.min(la.length, lb.length); i++) {
    if (la[i] !== lb[i]) return la[i] < lb[i] ? -1 : 1;
  }
  return la.length - lb.length;
}

/** Index of the last chain entry at or before `key` (the apex, at 0, precedes every name of the zone). */
function floorIndex(chain: string[], key: string): number {
  let lo = 0;
  let hi = chain.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (canonicalCompare(chain[mid], key) <= 0) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

// ---------------------------------------------------------------- records

const rawRRset = (type: number, ttl: number, rdatas: Buffer[]): RRset => ({
  type,
  ttl,
  texts: [],
  targets: [],
  encoded: rdatas.map((r) => rawRecord(type, ttl, r)),
  sigs: [],
});

const rdataOf = (encoded: Buffer): Buffer => encoded.subarray(10);

/** Whether the RRset of `type` at `key` is signed: everything authoritative; at a delegation only DS and NSEC (RFC 4035 §2.2). */
function signable(zone: Zone, key: string, type: number): boolean {
  if (type === QTYPE.RRSIG) return false;
  const cut = zone.cuts.size > 0 ? highestCut(zone, key) : null;
  if (cut === null) return true;
  return cut === key && (type === QTYPE.DS || type === QTYPE.NSEC);
}

/** In the NSEC chain: the apex and every name with authoritative data or a delegation (not glue below one). */
function inChain(zone: Zone, key: string): boolean {
  const node = zone.nodes.get(key);
  if (!node || onlyDnssecLeft(node)) return false;
  if (zone.cuts.size === 0) return true;
  const cut = highestCut(zone, key);
  return cut === null || cut === key;
}

/**
 * Every write of a DNSSEC-only RRset (RRSIG, NSEC, DNSKEY, CDS, CDNSKEY) goes through here, so
 * the index's observers (the IXFR journal) see signatures and the NSEC chain change with the
 * data they cover: a signed zone transfers signed, by AXFR and by IXFR.
 */
function put(zone: Zone, node: Node, type: number, rrset: RRset | undefined): void {
  const before = node.rrsets.get(type);
  if (rrset) node.rrsets.set(type, rrset);
  else if (!node.rrsets.delete(type)) return;
  zone.signedChange?.(node.key, before, rrset);
}

function signRRset(zone: Zone, key: string, rrset: RRset): Buffer[] {
  const signing = zone.signing!;
  const owner = Buffer.from(key, 'latin1');
  return signing
    .sign(owner, rrset.type, rrset.ttl, rrset.encoded.map(rdataOf))
    .map((r) => rawRecord(QTYPE.RRSIG, rrset.ttl, r));
}

/** Signs (or unsigns) every RRset at a node and rebuilds its RRSIG RRset. */
function signNode(zone: Zone, node: Node): void {
  const all: Buffer[] = [];
  for (const rrset of node.rrsets.values()) {
    if (rrset.type === QTYPE.RRSIG) continue;
    rrset.sigs = zone.signing && signable(zone, node.key, rrset.type) ? signRRset(zone, node.key, rrset) : [];
    all.push(...rrset.sigs);
  }
  put(zone, node, QTYPE.RRSIG, all.length > 0 ? { ...rawRRset(QTYPE.RRSIG, 0, []), encoded: all } : undefined);
}

/** Re-signs one RRset and the node's RRSIG RRset. */
function signOne(zone: Zone, node: Node, type: number): void {
  const rrset = node.rrsets.get(type);
  if (rrset) rrset.sigs = signable(zone, node.key, type) ? signRRset(zone, node.key, rrset) : [];
  const all: Buffer[] = [];
  for (const r of node.rrsets.values()) if (r.type !== QTYPE.RRSIG) all.push(...r.sigs);
  put(zone, node, QTYPE.RRSIG, all.length > 0 ? { ...rawRRset(QTYPE.RRSIG, 0, []), encoded: all } : undefined);
}

/** NSEC TTL: the negative-caching TTL (RFC 9077), as the SOA in negative answers. */
const nsecTtl = (zone: Zone): number => zone.negativeSoa.ttl;

function setNsec(zone: Zone, index: number): void {
  const key = zone.chain[index];
  const node = zone.nodes.get(key)!;
  const next = zone.chain[(index + 1) % zone.chain.length];
  const atCut = key !== zone.key && zone.cuts.has(key);
  const types = new Set<number>([QTYPE.NSEC, QTYPE.RRSIG]);
  for (const t of node.rrsets.keys()) if (!atCut || t === QTYPE.NS || t === QTYPE.DS) types.add(t);
  const rdata = zone.signing!.nsec(
    Buffer.from(next, 'latin1'),
    [...types].sort((a, b) => a - b),
  );
  const previous = node.rrsets.get(QTYPE.NSEC);
  if (
    previous &&
    previous.encoded.length === 1 &&
    rdataOf(previous.encoded[0]).equals(rdata) &&
    previous.ttl === nsecTtl(zone) &&
    previous.sigs.length > 0
  )
    return;
  put(zone, node, QTYPE.NSEC, rawRRset(QTYPE.NSEC, nsecTtl(zone), [rdata]));
  signOne(zone, node, QTYPE.NSEC);
}

function setApexKeys(zone: Zone): void {
  const apex = zone.nodes.get(zone.key)!;
  const s = zone.signing!;
  for (const [type, rdatas] of [
    [QTYPE.DNSKEY, s.dnskey],
    [QTYPE.CDS, s.cds],
    [QTYPE.CDNSKEY, s.cdnskey],
  ] as const) {
    put(zone, apex, type, rdatas.length > 0 ? rawRRset(type, s.keyTtl, rdatas) : undefined);
  }
}

// ---------------------------------------------------------------- whole-zone and incremental changes

/** Signs the whole zone with its current ZoneSigning, or strips every signed record when it has none. */
export function signZone(zone: Zone): void {
  if (!zone.signing) return unsignZone(zone);
  signNames(zone, beginSigning(zone), true);
}

/** Strips every DNSSEC record: no cryptography, so always done in one go. */
export function unsignZone(zone: Zone): void {
  for (const node of zone.nodes.values()) {
    for (const t of SIGNED_ONLY) put(zone, node, t, undefined);
    for (const r of node.rrsets.values()) r.sigs = [];
  }
  zone.negativeSoa.sigs = [];
  zone.chain = [];
  zone.chainChanged?.();
}

/**
 * The start of signing a whole zone with its current ZoneSigning (a key change, or signing
 * turned on): the keys at the apex, the NSEC chain, the apex signed. Returns the other names,
 * to sign with signNames, all at once or a slice at a time (ZoneIndex.setSigning): names not
 * reached yet keep their old signatures, which stay valid while their key is published (RFC
 * 7583: a key is withdrawn only after a wait), or have none yet in a zone being signed for
 * the first time, which validators treat as insecure until its DS is at the parent.
 */
export function beginSigning(zone: Zone): string[] {
  setApexKeys(zone);
  zone.chain = [...zone.nodes.keys()].filter((k) => inChain(zone, k)).sort(canonicalCompare);
  zone.chainChanged?.();
  const listed = new Set(zone.chain);
  for (const node of zone.nodes.values()) if (!listed.has(node.key)) stripNode(zone, node);
  signNames(zone, [zone.key], true);
  signNegativeSoa(zone);
  return zone.chain.slice(1);
}

/**
 * Signs these names with the zone's current ZoneSigning: their RRsets, and their NSEC (made
 * anew when `rebuildNsec`, after the chain was rebuilt; else kept, as in a refresh, and made
 * only where missing). Names that left the chain meanwhile are skipped.
 */
export function signNames(zone: Zone, keys: string[], rebuildNsec = false): void {
  if (!zone.signing) return;
  for (const key of keys) {
    const at = floorIndex(zone.chain, key);
    const node = zone.nodes.get(key);
    if (zone.chain[at] !== key || !node) continue;
    if (rebuildNsec || !node.rrsets.has(QTYPE.NSEC)) {
      put(zone, node, QTYPE.NSEC, undefined);
      setNsec(zone, at);
    }
    signNode(zone, node);
  }
}

function stripNode(zone: Zone, node: Node): void {
  put(zone, node, QTYPE.RRSIG, undefined);
  put(zone, node, QTYPE.NSEC, undefined);
  for (const r of node.rrsets.values()) r.sigs = [];
}

/** The SOA in negative answers has the negative TTL, with the apex SOA's signatures (made over the SOA's own TTL). */
export function signNegativeSoa(zone: Zone): void {
  if (!zone.signing) return;
  // The apex SOA's own signatures (just made): an RRSIG covers the original TTL, not the one
  // it is served with. No second signing, and the same bytes a secondary serves from a transfer.
  const apexSoa = zone.nodes.get(zone.key)!.rrsets.get(QTYPE.SOA)!;
  zone.negativeSoa.sigs = apexSoa.sigs.map((sig) => rawRecord(QTYPE.RRSIG, zone.negativeSoa.ttl, rdataOf(sig)));
}

/** After putZone replaced the apex SOA and NS: sign them (the apex NSEC does not change). */
export function signApex(zone: Zone): void {
  if (!zone.signing) return;
  const apex = zone.nodes.get(zone.key)!;
  if (!apex.rrsets.has(QTYPE.NSEC)) return signZone(zone);
  // The keys (DNSKEY, CDS, CDNSKEY) and their signatures stay: only the SOA and NS were replaced.
  signOne(zone, apex, QTYPE.SOA);
  signOne(zone, apex, QTYPE.NS);
  signNegativeSoa(zone);
}

/**
 * After one RRset at `key` changed (set or removed): its signatures, the node's place in the
 * chain, and the NSEC records naming it. A delegation appearing or going away changes what is
 * authoritative below it, so then the zone is signed again as a whole.
 */
export function signChange(zone: Zone, key: string, type: number, cutsChanged: boolean): void {
  if (!zone.signing) return;
  if (cutsChanged) return signZone(zone);
  const node = zone.nodes.get(key);
  const chain = zone.chain;
  const at = floorIndex(chain, key);
  const listed = chain[at] === key;
  const belongs = inChain(zone, key);
  if (belongs !== listed) zone.chainChanged?.();
  if (belongs && !listed) {
    chain.splice(at + 1, 0, key);
    setNsec(zone, at + 1);
    setNsec(zone, at);
  } else if (!belongs && listed) {
    chain.splice(at, 1);
    if (node) stripNode(zone, node);
    setNsec(zone, at - 1);
    return;
  }
  if (!node || !belongs) return;
  signOne(zone, node, type);
  setNsec(zone, floorIndex(chain, key));
}

// ---------------------------------------------------------------- answers to DO=1

/** The NSEC at the name, or the one whose span covers it (its predecessor in the chain). */
function nsecFor(zone: Zone, key: string): Placed | null {
  const owner = zone.chain[floorIndex(zone.chain, key)];
  const rrset = owner === undefined ? undefined : zone.nodes.get(owner)?.rrsets.get(QTYPE.NSEC);
  return rrset ? { owner, rrset } : null;
}

function addProof(list: Placed[], proof: Placed | null): void {
  if (proof && !list.some((p) => p.rrset === proof.rrset)) list.push(proof);
}

/**
 * The answer to a DO=1 query in a signed zone: the unsigned resolution with each RRset's
 * RRSIGs, plus the NSEC records that prove what does not exist (RFC 4035 §3.1.3): the name
 * and the wildcard for NXDOMAIN, the name's type bitmap for NODATA, the query name for an
 * answer synthesized from a wildcard, the missing DS at a delegation.
 */
export function resolveSigned(zone: Zone, key: string, qtype: number): Prepared {
  const cut = zone.cuts.size > 0 ? highestCut(zone, key) : null;
  if (cut !== null && !(cut === key && qtype === QTYPE.DS)) {
    const res = referral(zone, cut);
    const cutNode = zone.nodes.get(cut)!;
    const ds = cutNode.rrsets.get(QTYPE.DS);
    addProof(res.authority, ds ? { owner: cut, rrset: ds } : nsecFor(zone, cut));
    return prepare(zone, ownerOf(zone, cut), res, null, true);
  }
  const negative = (rcode: number, proofs: Array<Placed | null>): Prepared => {
    const authority: Placed[] = [{ owner: zone.key, rrset: zone.negativeSoa }];
    for (const p of proofs) addProof(authority, p);
    return prepare(zone, ownerOf(zone, key), { rcode, answer: [], authority }, null, true);
  };
  const node = zone.nodes.get(key) ?? (zone.existing.has(key) ? null : wildcardFor(zone, key));
  if (node === undefined) {
    const encloser = closestEncloser(zone, key);
    return negative(RCODE.NXDOMAIN, [nsecFor(zone, key), nsecFor(zone, WILDCARD_LABEL + encloser)]);
  }
  if (node === null) return negative(RCODE.NOERROR, [nsecFor(zone, key)]);
  const expanded = node.key !== key;
  const res = resolveAt(zone, node, qtype === QTYPE.ANY ? anyType(node) : qtype, true);
  if (expanded) addProof(res.authority, nsecFor(zone, key));
  return prepare(zone, ownerOf(zone, node.key), res, expanded ? null : wireKeyToName(node.key), true);
}

/** RFC 8482 with DNSSEC: answer ANY with one real, signed RRset of the name. */
function anyType(node: Node): number {
  if (node.rrsets.has(QTYPE.CNAME)) return QTYPE.CNAME;
  for (const t of node.rrsets.keys()) if (t !== QTYPE.RRSIG && t !== QTYPE.NSEC) return t;
  return QTYPE.NSEC;
}

/** Proofs resolveAt adds when it follows a CNAME in a signed zone. */
export function chainProofs(zone: Zone, target: string, next: Node | null | undefined): Placed[] {
  const proofs: Placed[] = [];
  if (next === undefined) {
    addProof(proofs, nsecFor(zone, target));
    addProof(proofs, nsecFor(zone, WILDCARD_LABEL + closestEncloser(zone, target)));
  } else if (next === null || next.key !== target) addProof(proofs, nsecFor(zone, target));
  return proofs;
}

/** NODATA at an existing node: its own NSEC. */
export const nodataProof = (zone: Zone, node: Node): Placed | null => nsecFor(zone, node.key);

export { addProof };
