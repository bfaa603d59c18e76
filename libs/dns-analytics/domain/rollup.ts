/**
 * Pre-aggregated query counts of one account (and one of its domains, or all of them) over
 * one hour or one day. Summaries add up rollups and never read raw rows; every count in a
 * rollup is additive, so buckets merge by plain addition whatever order they arrive in.
 */
import { isIpv6, type IpInfo, type QueryRow } from './query-row';
import { asQueryRows, DO, EDNS, TCP, type QueryRows } from './query-rows';

export type Granularity = 'hour' | 'day';

/** The rollup of every domain of an account together, so account summaries read one series. */
export const ALL_DOMAINS = '';

/** Upper bounds (ms) of the latency histogram; a last slot counts everything slower. */
export const LATENCY_BOUNDS_MS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 50, 100, 250, 500, 1000];

/** Distinct NXDOMAIN names a bucket keeps: the heaviest ones; a flood of random names must not grow a bucket without bound. */
export const MAX_NXDOMAIN_NAMES = 100;

export interface RollupCounts {
  total: number;
  latencySumMs: number;
  /** One count per LATENCY_BOUNDS_MS slot plus the overflow slot. */
  latency: number[];
  rcodes: Record<string, number>;
  qtypes: Record<string, number>;
  tcp: number;
  dnssecOk: number;
  edns: number;
  ipv6: number;
  countries: Record<string, number>;
  asns: Record<string, number>;
  /** Organisation name per ASN seen. */
  asOrgs: Record<string, string>;
  nxdomain: Record<string, number>;
}

export interface RollupKey {
  accountId: number;
  domain: string;
  granularity: Granularity;
  /** Epoch ms of the hour or UTC day the bucket starts. */
  start: number;
}

export interface Rollup extends RollupKey {
  counts: RollupCounts;
}

const HOUR = 3_600_000;
const DAY = 86_400_000;

export const bucketSize = (g: Granularity): number => (g === 'hour' ? HOUR : DAY);
export const bucketStart = (ts: number, g: Granularity): number => ts - (ts % bucketSize(g));

export const emptyCounts = (): RollupCounts => ({
  total: 0,
  latencySumMs: 0,
  latency: new Array<number>(LATENCY_BOUNDS_MS.length + 1).fill(0),
  rcodes: {},
  qtypes: {},
  tcp: 0,
  dnssecOk: 0,
  edns: 0,
  ipv6: 0,
  countries: {},
  asns: {},
  asOrgs: {},
  nxdomain: {},
});

const bump = (m: Record<string, number>, k: string, n = 1) => {
  m[k] = (m[k] ?? 0) + n;
};

export function latencySlot(ms: number): number {
  for (let i = 0; i < LATENCY_BOUNDS_MS.length; i++) if (ms <= LATENCY_BOUNDS_MS[i]) return i;
  return LATENCY_BOUNDS_MS.length;
}

/** Adds `b` into `a` (mutates `a`) and returns it. */
export function mergeCounts(a: RollupCounts, b: RollupCounts): RollupCounts {
  a.total += b.total;
  a.latencySumMs += b.latencySumMs;
  for (let i = 0; i < a.latency.length; i++) a.latency[i] += b.latency[i] ?? 0;
  for (const [k, n] of Object.entries(b.rcodes)) bump(a.rcodes, k, n);
  for (const [k, n] of Object.entries(b.qtypes)) bump(a.qtypes, k, n);
  a.tcp += b.tcp;
  a.dnssecOk += b.dnssecOk;
  a.edns += b.edns;
  a.ipv6 += b.ipv6;
  for (const [k, n] of Object.entries(b.countries)) bump(a.countries, k, n);
  for (const [k, n] of Object.entries(b.asns)) bump(a.asns, k, n);
  Object.assign(a.asOrgs, b.asOrgs);
  for (const [k, n] of Object.entries(b.nxdomain)) bump(a.nxdomain, k, n);
  return a;
}

/** Distinct networks a bucket keeps, likewise: the summary shows 5, a busy zone sees thousands. */
export const MAX_ASNS = 100;

/** Keeps the heaviest NXDOMAIN names and networks of a stored bucket (see MAX_NXDOMAIN_NAMES, MAX_ASNS). */
export function capNxdomain(c: RollupCounts): RollupCounts {
  const names = Object.entries(c.nxdomain);
  if (names.length > MAX_NXDOMAIN_NAMES) c.nxdomain = Object.fromEntries(topEntries(names, MAX_NXDOMAIN_NAMES));
  const asns = Object.entries(c.asns);
  if (asns.length > MAX_ASNS) {
    c.asns = Object.fromEntries(topEntries(asns, MAX_ASNS));
    c.asOrgs = Object.fromEntries(Object.keys(c.asns).map((k) => [k, c.asOrgs[k]]));
  }
  return c;
}

/** Whether entry x ranks before y: higher count first, ties by key so results are stable. */
const before = (x: [string, number], y: [string, number]): boolean => y[1] < x[1] || (y[1] === x[1] && x[0] < y[0]);

/**
 * Highest counts first, ties by key so results are stable. With many more entries than
 * wanted (a bucket of a random-name flood holds thousands of NXDOMAIN names, all counted
 * once) the n best are kept in a heap whose root is the worst of them: most entries are
 * turned away by one comparison, instead of a sort of them all.
 */
export function topEntries(entries: Array<[string, number]>, n: number): Array<[string, number]> {
  if (n <= 0) return [];
  if (entries.length <= 4 * n)
    return [...entries].sort((x, y) => (before(x, y) ? -1 : before(y, x) ? 1 : 0)).slice(0, n);
  const heap: Array<[string, number]> = [];
  const down = (i: number) => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let worst = i;
      if (l < heap.length && before(heap[worst], heap[l])) worst = l;
      if (r < heap.length && before(heap[worst], heap[r])) worst = r;
      if (worst === i) return;
      [heap[i], heap[worst]] = [heap[worst], heap[i]];
      i = worst;
    }
  };
  for (const e of entries) {
    if (heap.length < n) {
      // Sift up: the worst at the root.
      let i = heap.push(e) - 1;
      while (i > 0 && before(heap[(i - 1) >> 1], heap[i])) {
        const p = (i - 1) >> 1;
        [heap[i], heap[p]] = [heap[p], heap[i]];
        i = p;
      }
    } else if (before(e, heap[0])) {
      heap[0] = e;
      down(0);
    }
  }
  return heap.sort((x, y) => (before(x, y) ? -1 : before(y, x) ? 1 : 0));
}

/**
 * The rollups a batch of queries adds: per hour and per day, for the query's domain and
 * for the account as a whole.
 */
export function rollupsOf(rows: readonly QueryRow[] | QueryRows): Rollup[] {
  return expandRollups(accumulateHourly(new Map(), rows).values());
}

/**
 * Dense numbers, within one call of accumulateHourly, for the few distinct strings that
 * types and response codes take: a bucket counts them in a small typed array indexed by
 * that number, with no map lookup per query. Scratch, shared by the calls (they are
 * synchronous); `done` clears only the entries it set.
 */
class CodeSlots {
  /** String number → its slot + 1 (0: none yet). */
  private slotOf = new Int32Array(0);
  /** Slot → string number. */
  readonly ids: number[] = [];

  begin(tableSize: number): void {
    // A call that threw may have left its slots.
    this.done();
    if (this.slotOf.length < tableSize) this.slotOf = new Int32Array(Math.max(tableSize, 2 * this.slotOf.length));
  }

  of(id: number): number {
    const s = this.slotOf[id];
    return s !== 0 ? s - 1 : this.add(id);
  }

  private add(id: number): number {
    this.slotOf[id] = this.ids.push(id);
    return this.ids.length - 1;
  }

  done(): void {
    for (const id of this.ids) this.slotOf[id] = 0;
    this.ids.length = 0;
  }
}

const codeSlots = new CodeSlots();

/** Counts by CodeSlots' slot: a typed array, grown when a call meets more distinct codes. */
class CodeCounts {
  counts = new Uint32Array(8);

  add(slot: number): void {
    if (slot >= this.counts.length) {
      const grown = new Uint32Array(2 * slot + 2);
      grown.set(this.counts);
      this.counts = grown;
    }
    this.counts[slot]++;
  }

  foldInto(into: Record<string, number>, ids: readonly number[], t: readonly string[]): void {
    const counts = this.counts;
    for (let s = 0; s < counts.length && s < ids.length; s++) if (counts[s] > 0) bump(into, t[ids[s]], counts[s]);
  }
}

/**
 * A bucket's keyed counts within one call of accumulateHourly, by string number (or by the
 * IP data's answer): small integers per query, instead of a property of a string the table
 * never made canonical; the bucket's records get each distinct key once.
 */
class KeyedTally {
  readonly rcodes = new CodeCounts();
  readonly qtypes = new CodeCounts();
  readonly clients = new Map<IpInfo, number>();
  readonly nxdomain = new Map<number, number>();

  foldInto(c: RollupCounts, t: readonly string[], ids: readonly number[]): void {
    this.rcodes.foldInto(c.rcodes, ids, t);
    this.qtypes.foldInto(c.qtypes, ids, t);
    for (const [info, n] of this.clients) {
      bump(c.countries, info.country, n);
      bump(c.asns, info.asn, n);
      c.asOrgs[info.asn] = info.asOrg;
    }
    for (const [id, n] of this.nxdomain) bump(c.nxdomain, t[id], n);
  }
}

const add = <K>(m: Map<K, number>, k: K, n: number) => m.set(k, (m.get(k) ?? 0) + n);

/** Counts keys into a map a run of equal keys at a time: consecutive queries mostly repeat their client. */
class RunCount<K> {
  private key: K | undefined;
  private n = 0;
  private map: Map<K, number> | undefined;

  add(k: K): void {
    if (this.n > 0 && k === this.key) {
      this.n++;
      return;
    }
    this.flush();
    this.key = k;
    this.n = 1;
  }

  /** From now on into `map` (another bucket's). */
  into(map: Map<K, number>): void {
    this.flush();
    this.map = map;
  }

  flush(): void {
    if (this.n > 0) add(this.map!, this.key!, this.n);
    this.n = 0;
  }
}

/**
 * Adds each row to its own domain's hourly bucket in `out` (keyed by bucket), so several
 * batches merge before storage. Only one bucket per row: the day and account-wide buckets
 * follow from the hourly ones (expandRollups), once per write instead of once per row.
 */
export function accumulateHourly(
  out: Map<string, Rollup>,
  given: readonly QueryRow[] | QueryRows,
): Map<string, Rollup> {
  const rows = asQueryRows(given);
  const t = rows.strings;
  const tallies = new Map<Rollup, KeyedTally>();
  const clients = new RunCount<IpInfo>();
  codeSlots.begin(t.length);
  accumulateRows(out, rows, tallies, clients);
  clients.flush();
  foldTallies(tallies, t, codeSlots.ids);
  codeSlots.done();
  return out;
}

/**
 * accumulateHourly's loop, in a function that ends with it: the optimizer compiles the loop
 * while it runs (on-stack), before anything after it has run, and code after the loop without
 * type feedback sent each call back to the interpreter there ("insufficient type feedback", a
 * deoptimisation and a recompilation per delivery on the query-log thread).
 */
function accumulateRows(
  out: Map<string, Rollup>,
  rows: QueryRows,
  tallies: Map<Rollup, KeyedTally>,
  clients: RunCount<IpInfo>,
): void {
  const t = rows.strings;
  // Consecutive rows mostly share a bucket, a client and a response code: no key string, no string test then.
  let last: Rollup | undefined;
  let tally: KeyedTally | undefined;
  let lastDomain = -1;
  let lastClient = -1;
  let ipv6 = false;
  let lastRcode = -1;
  let nx = false;
  const slots = codeSlots;
  const { ts, accountId: accounts, domain: domains, clientIp, rcode: rcodesOf, qtype, qname, responseMs: times } = rows;
  const { flags: flagsOf, info } = rows;
  // The hour of the row before: a double's modulo is a library call, and rows of a batch mostly share an hour.
  let start = NaN;
  for (let i = 0; i < rows.count; i++) {
    const t0 = ts[i];
    if (!(t0 >= start && t0 < start + HOUR)) start = t0 - (t0 % HOUR);
    const accountId = accounts[i];
    const domain = domains[i];
    if (!last || !tally || last.start !== start || last.accountId !== accountId || lastDomain !== domain) {
      const key = `${accountId}|${t[domain]}|${start}`;
      last = out.get(key);
      if (!last)
        out.set(key, (last = { accountId, domain: t[domain], granularity: 'hour', start, counts: emptyCounts() }));
      tally = tallies.get(last);
      if (!tally) tallies.set(last, (tally = new KeyedTally()));
      clients.into(tally.clients);
      lastDomain = domain;
    }
    if (clientIp[i] !== lastClient) {
      lastClient = clientIp[i];
      ipv6 = isIpv6(t[lastClient]);
    }
    const rcode = rcodesOf[i];
    if (rcode !== lastRcode) {
      lastRcode = rcode;
      nx = t[rcode] === 'NXDOMAIN';
    }
    const c = last.counts;
    const responseMs = times[i];
    const flags = flagsOf[i];
    c.total++;
    c.latencySumMs += responseMs;
    // Most answers fall in the first slot: no search for them.
    c.latency[responseMs <= LATENCY_BOUNDS_MS[0] ? 0 : latencySlot(responseMs)]++;
    if (flags & TCP) c.tcp++;
    if (flags & DO) c.dnssecOk++;
    if (flags & EDNS) c.edns++;
    if (ipv6) c.ipv6++;
    tally.rcodes.add(slots.of(rcode));
    tally.qtypes.add(slots.of(qtype[i]));
    clients.add(info[i]);
    if (nx) add(tally.nxdomain, qname[i], 1);
  }
}

/** The tallies into their buckets' counts (after accumulateRows' loop, see there). */
function foldTallies(tallies: Map<Rollup, KeyedTally>, t: readonly string[], ids: readonly number[]): void {
  for (const [rollup, keyed] of tallies) keyed.foldInto(rollup.counts, t, ids);
}

/** Every bucket the hourly domain buckets add to: per hour and per day, for the domain and for the account. */
export function expandRollups(hourly: Iterable<Rollup>): Rollup[] {
  const out = new Map<string, Rollup>();
  for (const h of hourly) {
    // An increment's lighter names are cut before it is added to four buckets: a random-name
    // flood brings thousands a second, each otherwise merged into every bucket and sorted out
    // of each again. A bucket with fewer distinct names than the cap loses none (its increments
    // have fewer still), so its top lists stay exact, as before.
    capNxdomain(h.counts);
    for (const granularity of ['hour', 'day'] as const) {
      const start = granularity === 'hour' ? h.start : bucketStart(h.start, 'day');
      for (const domain of [h.domain, ALL_DOMAINS]) {
        const key = `${h.accountId}|${domain}|${granularity}|${start}`;
        let r = out.get(key);
        if (!r) out.set(key, (r = { accountId: h.accountId, domain, granularity, start, counts: emptyCounts() }));
        mergeCounts(r.counts, h.counts);
      }
    }
  }
  return [...out.values()];
}

/**
 * The latency below which `fraction` of the queries were answered, as the upper bound of
 * the histogram slot holding that rank (a conservative estimate; the overflow slot reports
 * the average of what it is known to exceed, the last bound).
 */
export function latencyPercentile(c: RollupCounts, fraction: number): number {
  if (c.total === 0) return 0;
  const rank = Math.ceil(c.total * fraction);
  let seen = 0;
  for (let i = 0; i < c.latency.length; i++) {
    seen += c.latency[i];
    if (seen >= rank) return LATENCY_BOUNDS_MS[i] ?? LATENCY_BOUNDS_MS[LATENCY_BOUNDS_MS.length - 1];
  }
  return LATENCY_BOUNDS_MS[LATENCY_BOUNDS_MS.length - 1];
}
