/**
 * Does the embedded read store's own filter evaluator (filter-evaluation.ts, `fastVerdict`)
 * pay against mingo, the reference it falls back on? Times, per document tested, the read
 * models' typical filters three ways: the fast path; mingo as the store would use it without
 * one (a `Query` built per filter, then tested: one document for guarded writes and `_id`
 * lookups, several for a scan); and mingo with the `Query` built once (the floor no store can
 * reach, since filters differ per call). Prints the median of several rounds, all rounds, and
 * the machine's load average.
 *
 * Run: npm run bench:readstore-filters   env: FILTER_BENCH_ROUNDS (7), FILTER_BENCH_MS (300)
 */
import { loadavg } from 'node:os';
import { Query } from 'mingo';
import { fastVerdict } from '../libs/readstore/embedded/filter-evaluation';
import { Doc, Filter } from '../libs/readstore/read-store.port';

const ROUNDS = Number(process.env.FILTER_BENCH_ROUNDS ?? 7);
const ROUND_MS = Number(process.env.FILTER_BENCH_MS ?? 300);

const domain = (i: number): Doc => ({
  _id: i,
  account_id: i % 50,
  monitor_enabled: i % 3 !== 0,
  deleted: false,
  target_pos: i * 7,
  _pos: i * 11,
});
const lease = (i: number): Doc => ({
  _id: `consumer-${i}`,
  holder: `worker-${i % 4}`,
  expires_at: 1_700_000_000_000 + i * 1000,
});
const key = (i: number): Doc => ({
  _id: `k${i}`,
  account_id: i % 50,
  is_active: i % 5 !== 0,
  key_hash: `h${i}`,
  created_at: '2026-11-01T00:00:00.000Z',
});
const timer = (i: number): Doc => ({
  _id: `t${i}`,
  owner: `pm-${i % 3}`,
  due_at: 1_700_000_000_000 + i * 60_000,
  stream: `s${i}`,
  id: `d${i}`,
});

interface Case {
  name: string;
  filter: (i: number) => Filter;
  /** The documents one call tests: one for a guarded write or lookup, a page of candidates for a scan. */
  docs: Doc[];
}

const many = (make: (i: number) => Doc, n: number) => Array.from({ length: n }, (_, i) => make(i));
const CASES: Case[] = [
  // projections/guard.ts: every projected event's upsert, one document.
  {
    name: 'guard {_id, $or: [{_pos: {$lt}}, {_pos: {$exists: false}}]}',
    filter: (i) => ({ _id: 5, $or: [{ _pos: { $lt: 100 + (i % 7) } }, { _pos: { $exists: false } }] }),
    docs: [domain(5)],
  },
  // Most lookups: findOne({_id}), updateOne({_id}, …): one document.
  { name: '{_id}', filter: (i) => ({ _id: `k${i % 2}` }), docs: [key(1)] },
  // projections/uptime-domains.projection.ts: guarded target update, one document.
  {
    name: '{_id, monitor_enabled: true, target_pos: {$lt}}',
    filter: (i) => ({ _id: 4, monitor_enabled: true, target_pos: { $lt: 100 + (i % 7) } }),
    docs: [domain(4)],
  },
  // libs/consumers/read-store-coordination.ts: lease renewal, one document.
  {
    name: 'lease {_id, $or: [{holder}, {expires_at: {$lte}}]}',
    filter: (i) => ({
      _id: 'consumer-2',
      $or: [{ holder: `worker-${i % 4}` }, { expires_at: { $lte: 1_700_000_001_000 } }],
    }),
    docs: [lease(2)],
  },
  // api-key.queries listActive: a scan over one account's candidates.
  {
    name: '{account_id, is_active: true} over 20 docs',
    filter: (i) => ({ account_id: i % 50, is_active: true }),
    docs: many(key, 20),
  },
  // read-store-coordination dueTimers: a scan over candidates.
  {
    name: '{owner, due_at: {$lte}} over 20 docs',
    filter: (i) => ({ owner: `pm-${i % 3}`, due_at: { $lte: 1_700_000_600_000 } }),
    docs: many(timer, 20),
  },
];

type Way = (c: Case, i: number) => number;
const WAYS: Record<string, Way> = {
  // What EmbeddedCollection.tester does: the fast verdict, mingo only when it cannot decide.
  'fast path': (c, i) => {
    const filter = c.filter(i);
    let query: Query | null = null;
    let n = 0;
    for (const d of c.docs) if (fastVerdict(filter, d) ?? (query ??= new Query(filter)).test(d)) n++;
    return n;
  },
  'mingo, Query per call': (c, i) => {
    const query = new Query(c.filter(i));
    let n = 0;
    for (const d of c.docs) if (query.test(d)) n++;
    return n;
  },
};

/** Nanoseconds per document tested, running `way` for about ROUND_MS. */
function round(c: Case, way: Way): number {
  let sink = 0;
  let calls = 0;
  const start = process.hrtime.bigint();
  const until = start + BigInt(ROUND_MS * 1e6);
  let now = start;
  while (now < until) {
    for (let k = 0; k < 200; k++) sink += way(c, calls++);
    now = process.hrtime.bigint();
  }
  if (sink < 0) console.log(sink);
  return Number(now - start) / (calls * c.docs.length);
}

/** The floor: one Query built outside the loop, tested only (no store can do this: filters differ per call). */
function compiledOnce(c: Case): number {
  const query = new Query(c.filter(0));
  return round(c, (cc) => {
    let n = 0;
    for (const d of cc.docs) if (query.test(d)) n++;
    return n;
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (ns: number) => ns.toFixed(0).padStart(7);

console.log(
  `readstore filters: ns per document tested, median of ${ROUNDS} rounds of ${ROUND_MS} ms (load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')})`,
);
for (const c of CASES) {
  // Warm-up, uncounted.
  for (const way of Object.values(WAYS)) round(c, way);
  const results: Record<string, number[]> = {
    ...Object.fromEntries(Object.keys(WAYS).map((w) => [w, [] as number[]])),
    'mingo, Query built once': [],
  };
  for (let r = 0; r < ROUNDS; r++) {
    // Alternating ways within each round, so load swings hit them alike.
    for (const [name, way] of Object.entries(WAYS)) results[name].push(round(c, way));
    results['mingo, Query built once'].push(compiledOnce(c));
  }
  const fast = median(results['fast path']);
  const mingo = median(results['mingo, Query per call']);
  console.log(`\n${c.name}  (mingo / fast path: ${(mingo / fast).toFixed(1)}x)`);
  for (const [name, xs] of Object.entries(results))
    console.log(`  ${name.padEnd(26)} ${fmt(median(xs))} ns   rounds: ${xs.map((x) => x.toFixed(0)).join(' ')}`);
}
