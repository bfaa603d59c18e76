/**
 * Logged queries as columns (struct of arrays): the form in which the query-log writer
 * hands a batch to rollups and to the stores' block encoder. Strings are numbers into one
 * table, on the query-log thread the very table the rings' bytes were interned into, so a
 * name is never looked up as text again; enrichment is a reference to the IP data's answer
 * for the address, shared by every query from it. A batch of thousands of queries is a
 * dozen arrays, not thousands of objects.
 */
import type { IpInfo, QueryRow } from './query-row';

/** Bits of the flags column. */
export const TCP = 1;
export const DO = 2;
export const EDNS = 4;

export const flagsOf = (q: Pick<QueryRow, 'transport' | 'dnssecOk' | 'edns'>): number =>
  (q.transport === 'tcp' ? TCP : 0) | (q.dnssecOk ? DO : 0) | (q.edns ? EDNS : 0);

export class QueryRows {
  /** Rows filled so far (the columns may be longer). */
  count = 0;
  readonly ts: Float64Array;
  readonly responseMs: Float64Array;
  readonly accountId: Float64Array;
  /** Numbers into `strings`. */
  readonly domain: Uint32Array;
  readonly qname: Uint32Array;
  readonly qtype: Uint32Array;
  readonly rcode: Uint32Array;
  readonly clientIp: Uint32Array;
  readonly flags: Uint8Array;
  readonly info: IpInfo[];

  constructor(
    /** Rows the columns hold. */
    readonly capacity: number,
    /** Read only here: it may be a table others still append to. Replaced when the rows are reused. */
    public strings: readonly string[],
  ) {
    this.ts = new Float64Array(capacity);
    this.responseMs = new Float64Array(capacity);
    this.accountId = new Float64Array(capacity);
    this.domain = new Uint32Array(capacity);
    this.qname = new Uint32Array(capacity);
    this.qtype = new Uint32Array(capacity);
    this.rcode = new Uint32Array(capacity);
    this.clientIp = new Uint32Array(capacity);
    this.flags = new Uint8Array(capacity);
    this.info = new Array<IpInfo>(capacity);
  }

  /** Empties the rows for reuse (their columns are overwritten as rows are added), numbered in `table`. */
  reuse(table: readonly string[]): this {
    this.strings = table;
    this.count = 0;
    return this;
  }

  /** Rows given as objects (imports, tests, the rare object path), strings numbered in a table of their own. */
  static of(rows: readonly QueryRow[]): QueryRows {
    const strings: string[] = [];
    const ids = new Map<string, number>();
    const id = (s: string): number => {
      let n = ids.get(s);
      if (n === undefined) ids.set(s, (n = strings.push(s) - 1));
      return n;
    };
    const out = new QueryRows(rows.length, strings);
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i];
      out.ts[i] = r.ts;
      out.responseMs[i] = r.responseMs;
      out.accountId[i] = r.accountId;
      out.domain[i] = id(r.domain);
      out.qname[i] = id(r.qname);
      out.qtype[i] = id(r.qtype);
      out.rcode[i] = id(r.rcode);
      out.clientIp[i] = id(r.clientIp);
      out.flags[i] = flagsOf(r);
      out.info[i] = { country: r.country, asn: r.asn, asOrg: r.asOrg };
    }
    out.count = rows.length;
    return out;
  }

  /** Row `i` as an object. */
  row(i: number): QueryRow {
    const t = this.strings;
    const f = this.flags[i];
    const info = this.info[i];
    return {
      ts: this.ts[i],
      accountId: this.accountId[i],
      domain: t[this.domain[i]],
      qname: t[this.qname[i]],
      qtype: t[this.qtype[i]],
      rcode: t[this.rcode[i]],
      clientIp: t[this.clientIp[i]],
      country: info.country,
      asn: info.asn,
      asOrg: info.asOrg,
      transport: f & TCP ? 'tcp' : 'udp',
      dnssecOk: (f & DO) !== 0,
      edns: (f & EDNS) !== 0,
      responseMs: this.responseMs[i],
    };
  }
}

/** Rows as columns, converting objects. */
export const asQueryRows = (rows: readonly QueryRow[] | QueryRows): QueryRows =>
  rows instanceof QueryRows ? rows : QueryRows.of(rows);
