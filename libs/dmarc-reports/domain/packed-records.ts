import { AggregateRecord, DkimResult, dmarcPassed, SpfResult } from './aggregate-report';

/**
 * Aggregate records packed for storage in a `DmarcAggregateRecordsAdded` event: the
 * distinct strings of the chunk once, and every record's fields as numbers that point
 * into them. A 1,000-record chunk is ~55 KB of JSON instead of ~225 KB as objects (each
 * record repeats its field names and the same few keywords and domains), and decodes to
 * a handful of arrays instead of thousands of objects. A large report's events are
 * serialised, stored, read back and decoded by every consumer of `$all`, so their size
 * is paid several times over in memory (docs/decisions/0044-report-storage-one-append-packed-chunks.md).
 *
 * `values` holds, record after record (a string field is its index in `strings`, -1
 * when the record has none):
 *
 *     source_ip, count, disposition, dkim, spf, header_from, envelope_from, envelope_to,
 *     reasons n, n × (type, comment),
 *     dkim_results n, n × (domain, selector, result),
 *     spf_results n, n × (domain, scope, result)
 */
export interface PackedRecords {
  strings: string[];
  values: number[];
}

const ABSENT = -1;

/**
 * Records per chunk event: a 50,000-record report becomes one header and 50 chunks of
 * about 55 KB of JSON each, appended together, so no single event is large and a reader
 * never holds more than a chunk's worth per event.
 */
export const RECORDS_PER_CHUNK = 1000;

/** Packs records one at a time, so a report's records never need to exist as objects all at once. */
export class RecordPacker {
  private strings: string[] = [];
  private indexes = new Map<string, number>();
  private values: number[] = [];
  private packed = 0;

  /** Records added since the last `take`. */
  get size(): number {
    return this.packed;
  }

  add(r: AggregateRecord): void {
    const v = this.values;
    v.push(
      this.ref(r.source_ip),
      r.count,
      this.ref(r.disposition),
      this.ref(r.dkim),
      this.ref(r.spf),
      this.ref(r.header_from),
    );
    v.push(this.optional(r.envelope_from), this.optional(r.envelope_to));
    const reasons = r.reasons ?? [];
    v.push(reasons.length);
    for (const reason of reasons) v.push(this.ref(reason.type), this.optional(reason.comment));
    v.push(r.dkim_results.length);
    for (const d of r.dkim_results) v.push(this.ref(d.domain), this.optional(d.selector), this.ref(d.result));
    v.push(r.spf_results.length);
    for (const s of r.spf_results) v.push(this.ref(s.domain), this.optional(s.scope), this.ref(s.result));
    this.packed += 1;
  }

  /** The records added so far, packed; the packer starts afresh. */
  take(): PackedRecords {
    const out = { strings: this.strings, values: this.values };
    this.strings = [];
    this.indexes = new Map();
    this.values = [];
    this.packed = 0;
    return out;
  }

  private ref(value: string): number {
    let at = this.indexes.get(value);
    if (at === undefined) {
      at = this.strings.push(value) - 1;
      this.indexes.set(value, at);
    }
    return at;
  }

  private optional(value: string | undefined): number {
    return value === undefined ? ABSENT : this.ref(value);
  }
}

export function packRecords(records: readonly AggregateRecord[]): PackedRecords {
  const packer = new RecordPacker();
  for (const r of records) packer.add(r);
  return packer.take();
}

/**
 * The records of a packed chunk, as the parser made them (optional fields absent, not
 * undefined). Refuses a chunk that does not follow the layout rather than making up rows.
 */
export function unpackRecords({ strings, values }: PackedRecords): AggregateRecord[] {
  const out: AggregateRecord[] = [];
  let at = 0;
  const next = (): number => {
    if (at >= values.length) throw new Error('packed records end in the middle of a record');
    return values[at++];
  };
  const string = (): string => {
    const i = next();
    const s = strings[i];
    if (s === undefined) throw new Error(`packed records name string ${i} of ${strings.length}`);
    return s;
  };
  const optional = (): string | undefined => {
    if (values[at] !== ABSENT) return string();
    at++;
    return undefined;
  };
  while (at < values.length) {
    const source_ip = string();
    const count = next();
    const disposition = string();
    const dkim = string();
    const spf = string();
    const header_from = string();
    const envelope_from = optional();
    const envelope_to = optional();
    const reasons: NonNullable<AggregateRecord['reasons']> = [];
    for (let n = next(); n > 0; n--) {
      const type = string();
      const comment = optional();
      reasons.push(comment === undefined ? { type } : { type, comment });
    }
    const dkim_results: DkimResult[] = [];
    for (let n = next(); n > 0; n--) {
      const domain = string();
      const selector = optional();
      const result = string();
      dkim_results.push(selector === undefined ? { domain, result } : { domain, selector, result });
    }
    const spf_results: SpfResult[] = [];
    for (let n = next(); n > 0; n--) {
      const domain = string();
      const scope = optional();
      const result = string();
      spf_results.push(scope === undefined ? { domain, result } : { domain, scope, result });
    }
    // The parser's field order: the documents written from these read the same as before.
    const record: AggregateRecord = {
      source_ip,
      count,
      disposition,
      dkim,
      spf,
      header_from,
      dkim_results,
      spf_results,
    };
    if (reasons.length) record.reasons = reasons;
    if (envelope_from !== undefined) record.envelope_from = envelope_from;
    if (envelope_to !== undefined) record.envelope_to = envelope_to;
    out.push(record);
  }
  return out;
}

/**
 * A report's records as the parser reads them: each packed as it comes, a chunk at a
 * time, with the totals the report's header needs. A 50,000-record report held as
 * objects was ~16 MB of heap until its events were built; packed it is about a third.
 */
export class PackedRecordList implements Iterable<AggregateRecord> {
  private readonly full: PackedRecords[] = [];
  private readonly packer = new RecordPacker();
  private sealed = false;
  length = 0;
  /** Messages of all records, and of those that passed DMARC (an aligned DKIM or SPF pass). */
  messages = 0;
  passing = 0;

  static of(records: Iterable<AggregateRecord>): PackedRecordList {
    const list = new PackedRecordList();
    for (const r of records) list.add(r);
    return list;
  }

  add(r: AggregateRecord): void {
    // Once the chunks are out the last one may be short: a record after it would break the offsets.
    if (this.sealed) throw new Error('records added after their chunks were taken');
    this.packer.add(r);
    this.length += 1;
    this.messages += r.count;
    if (dmarcPassed(r)) this.passing += r.count;
    if (this.packer.size === RECORDS_PER_CHUNK) this.full.push(this.packer.take());
  }

  /** The records in chunks of RECORDS_PER_CHUNK (the last one shorter), as the chunk events carry them. */
  chunks(): readonly PackedRecords[] {
    this.sealed = true;
    if (this.packer.size > 0) this.full.push(this.packer.take());
    return this.full;
  }

  /** Every record as an object (small reports, tests): a large report is read a chunk at a time. */
  toArray(): AggregateRecord[] {
    return this.chunks().flatMap(unpackRecords);
  }

  [Symbol.iterator](): Iterator<AggregateRecord> {
    return this.toArray()[Symbol.iterator]();
  }
}
