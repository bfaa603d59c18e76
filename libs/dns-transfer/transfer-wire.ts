/**
 * The answer section of a zone transfer in wire form, packed into message bodies of up to
 * MESSAGE_BODY_BYTES: a message is then a fresh header and the question (the zone's name in
 * full, so a body's offsets are the same in every message), a body shared by every transfer of
 * the same zone revision, and a TSIG record. Owners are compressed against the question and the
 * record before, so a body does not depend on the request. A full transfer's bodies are kept per
 * zone revision (`FullTransferCache`): the records are copied once, not once per secondary.
 */
import type { ZoneContents, ZoneVersion } from '../dns-server';
import type { Delta } from './journal';

/** Room for a TSIG record: the longest key name (255), type to RDLENGTH (10), hmac-sha512's RDATA (95), with margin. */
const TSIG_RECORD_ROOM = 512;
/** A header (12) and the longest question (255 + type and class). */
const HEADER_AND_QUESTION = 12 + 255 + 4;
/** A TCP DNS message holds 65,535 bytes: a body fills what the header, question and TSIG leave. */
export const MESSAGE_BODY_BYTES = 65_535 - HEADER_AND_QUESTION - TSIG_RECORD_ROOM;

/** Records in wire form (owner compressed against the question), `count` of them. */
export interface MessageBody {
  bytes: Buffer;
  count: number;
}

/** A transfer's bodies with its totals. */
export interface TransferBodies {
  bodies: MessageBody[];
  records: number;
  bytes: number;
}

/**
 * Packs records into bodies, each record's bytes copied once. An owner is written as its labels
 * above the apex and a pointer to the question (the apex: the pointer alone); the next records
 * of the same owner point to it while it lies in the first 16 KiB of the message (where
 * pointers reach). 64 KiB messages with that (1.94 MB for the benchmark's 100,000 records) cost
 * less than 16 KiB ones compressed throughout (1.62 MB, but four times the messages to sign and
 * write): decision 0098.
 */
class BodyPacker {
  private readonly done: MessageBody[] = [];
  private buffer: Buffer;
  private at = 0;
  private count = 0;
  /** Where a body starts in its message: after the header and the question (the zone's name in full). */
  private readonly base: number;
  /** The owner of the record written last in this body, and the pointer to it (0 when it cannot be pointed to). */
  private lastOwner = '';
  private lastPointer = 0;
  records = 0;
  bytes = 0;

  constructor(
    private readonly apex: string,
    private readonly bodyBytes = MESSAGE_BODY_BYTES,
  ) {
    this.buffer = Buffer.allocUnsafe(bodyBytes);
    this.base = 12 + apex.length + 4;
  }

  /** `owner` is a wire key at or below the apex; `record` the record from its type field on. */
  add(owner: string, record: Buffer): void {
    let again = owner === this.lastOwner && this.lastPointer !== 0;
    let labels = again ? 0 : Math.max(0, owner.length - this.apex.length);
    let size = labels + 2 + record.length;
    if (this.at + size > this.buffer.length) {
      this.close();
      again = false;
      labels = Math.max(0, owner.length - this.apex.length);
      size = labels + 2 + record.length;
      // A record larger than a body (a TXT of many strings) travels alone in a message of its size.
      if (size > this.buffer.length) this.buffer = Buffer.allocUnsafe(size);
    }
    const buffer = this.buffer;
    let at = this.at;
    if (again) {
      buffer[at++] = this.lastPointer >> 8;
      buffer[at++] = this.lastPointer & 0xff;
    } else {
      // Pointers reach the first 16 KiB of a message only.
      const offset = this.base + at;
      this.lastOwner = owner;
      this.lastPointer = labels > 0 && offset < 0x4000 ? 0xc000 | offset : 0;
      // Byte by byte from the latin1 key: a few characters, cheaper than a call to encode them.
      for (let i = 0; i < labels; i++) buffer[at++] = owner.charCodeAt(i);
      buffer[at++] = 0xc0;
      buffer[at++] = 0x0c;
    }
    // TypedArray#set: Buffer#copy costs a call into C++ per record, most of the build for small records.
    buffer.set(record, at);
    this.at = at + record.length;
    this.count++;
    this.records++;
    this.bytes += size;
  }

  addAll(owner: string, records: Buffer[]): void {
    for (const record of records) this.add(owner, record);
  }

  finish(): TransferBodies {
    this.close();
    return { bodies: this.done, records: this.records, bytes: this.bytes };
  }

  private close(): void {
    this.lastOwner = '';
    this.lastPointer = 0;
    if (this.count === 0) return;
    // A short last body (a small zone's only one) is copied out: kept bodies hold their bytes, not a whole 64 KiB.
    const filled = this.buffer.subarray(0, this.at);
    const bytes = this.at < this.buffer.length / 2 ? Buffer.from(filled) : filled;
    this.done.push({ bytes, count: this.count });
    this.buffer = Buffer.allocUnsafe(this.bodyBytes);
    this.at = 0;
    this.count = 0;
  }
}

/** Records packed between two turns of the event loop while a transfer is built (well under a millisecond). */
export const BUILD_SLICE_RECORDS = 5_000;

/**
 * After each slice of a build, the last one too: the caller accounts the time and lets other
 * work run (queries, and its time share). A build walks a snapshot of references to immutable records, so the zone may
 * change meanwhile without changing what is built.
 */
export type BetweenSlices = () => Promise<void>;

/** AXFR (RFC 5936 §2.2): the SOA, every other record, the SOA again. */
export async function fullTransfer(contents: ZoneContents, between: BetweenSlices): Promise<TransferBodies> {
  const packer = new BodyPacker(contents.apex);
  const soa = contents.soa.encoded[0];
  packer.add(contents.apex, soa);
  let next = BUILD_SLICE_RECORDS;
  for (const { owner, rrset } of contents.rrsets) {
    for (const record of rrset.encoded) packer.add(owner, record);
    if (packer.records >= next) {
      next = packer.records + BUILD_SLICE_RECORDS;
      await between();
    }
  }
  packer.add(contents.apex, soa);
  await between();
  return packer.finish();
}

/** IXFR (RFC 1995 §4): the current SOA, then per delta its old SOA, removals, new SOA, additions; the current SOA. */
export async function incrementalTransfer(
  contents: ZoneVersion,
  deltas: Delta[],
  between: BetweenSlices,
): Promise<TransferBodies> {
  const packer = new BodyPacker(contents.apex);
  const { apex } = contents;
  const soa = contents.soa.encoded[0];
  let next = BUILD_SLICE_RECORDS;
  const add = async (owner: string, record: Buffer) => {
    packer.add(owner, record);
    if (packer.records < next) return;
    next = packer.records + BUILD_SLICE_RECORDS;
    await between();
  };
  await add(apex, soa);
  for (const d of deltas) {
    await add(apex, d.fromSoa);
    for (const r of d.removed) await add(r.owner, r.record);
    await add(apex, d.toSoa);
    for (const r of d.added) await add(r.owner, r.record);
  }
  await add(apex, soa);
  await between();
  return packer.finish();
}

/** An IXFR answer when the client is current: the SOA alone (RFC 1995 §2). */
export function currentSoa(contents: ZoneVersion): TransferBodies {
  const packer = new BodyPacker(contents.apex);
  packer.add(contents.apex, contents.soa.encoded[0]);
  return packer.finish();
}

/** Bytes of full transfers kept by default: about 15 zones of 100,000 A records (2.1 MB each). */
export const DEFAULT_BODY_CACHE_BYTES = 32 * 1024 * 1024;

interface CacheEntry {
  revision: number;
  built: Promise<TransferBodies>;
  /** Bytes counted against the cap, once built. */
  bytes: number;
}

/**
 * Full transfers' bodies by zone, each valid for one revision of the zone (ZoneContents.revision):
 * secondaries transferring the same zone version share one copy, built by the first (those
 * asking while it is built wait for it). At most `maxBytes` in all, the least recently
 * transferred zones dropped first; a zone larger than that is built for each transfer.
 */
export class FullTransferCache {
  private readonly entries = new Map<string, CacheEntry>();
  private held = 0;
  /** Full transfers built (not served from the cache): benchmarks and tests. */
  builds = 0;

  constructor(private readonly maxBytes = DEFAULT_BODY_CACHE_BYTES) {}

  /** Bytes held now. */
  get bytes(): number {
    return this.held;
  }

  /** The bodies of `version`; `contents` (a walk of the zone) is read only when they are not kept. */
  get(version: ZoneVersion, contents: () => ZoneContents, between: BetweenSlices): Promise<TransferBodies> {
    const { zone, revision } = version;
    const cached = this.entries.get(zone);
    if (cached?.revision === revision) {
      // Most recently used last: eviction takes from the front.
      this.entries.delete(zone);
      this.entries.set(zone, cached);
      return cached.built;
    }
    if (cached) this.drop(zone, cached);
    this.builds++;
    const entry: CacheEntry = { revision, built: fullTransfer(contents(), between), bytes: 0 };
    this.entries.set(zone, entry);
    void entry.built.then(
      (built) => this.keep(zone, entry, built.bytes),
      () => this.drop(zone, entry),
    );
    return entry.built;
  }

  private keep(zone: string, entry: CacheEntry, bytes: number): void {
    if (this.entries.get(zone) !== entry) return;
    if (bytes > this.maxBytes) return this.drop(zone, entry);
    for (const [other, e] of this.entries) {
      if (this.held + bytes <= this.maxBytes) break;
      if (e !== entry) this.drop(other, e);
    }
    entry.bytes = bytes;
    this.held += bytes;
  }

  private drop(zone: string, entry: CacheEntry): void {
    if (this.entries.get(zone) !== entry) return;
    this.entries.delete(zone);
    this.held -= entry.bytes;
  }
}
