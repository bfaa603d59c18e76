/**
 * What the read side costs per DDNS update, alone (decision 0113): the three projections
 * every address change reaches besides audit (`domains`, `uptime-domains`, `history`) apply
 * `DomainAddressesChanged` events to an embedded read store on disk, as the service's runners
 * do (first deliveries, the writer thread, the document cache; before each event the host is
 * found by fqdn, as the DDNS command finds it), and the bench reads the CPU
 * of the main thread and of the writer thread (`readstore`) from /proc. Without HTTP, the
 * event store, DNS and the other consumers, a change worth 1 % of the main thread shows.
 *
 * The hosts are created first and the store reopened, so their documents are on disk and not
 * in memory (the service's hosts between two changes); each round then changes HOSTS hosts
 * CHANGES times each, in random order (bench:ddns changes a host about five times a round;
 * CHANGES=1 is the real DDNS host, cold at every change).
 *
 * PROJECTION_WRITES_OTHER_DIST=<another build's dist> runs that build's store and projections
 * in alternate rounds (each its own store file), so both see the same machine load.
 *
 * PROJECTION_WRITES_ONLY=history,audit applies only the projections named (decision 0122 measured
 * the two capabilities alone this way; `audit` is not applied unless named).
 *
 * Run: npm run build && node dist/bench/projection-writes.bench.js
 * Env: HOSTS (5000), CHANGES (5), ROUNDS (3), PROJECTION_WRITES_OTHER_DIST, PROJECTION_WRITES_ONLY
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const HOSTS = Number(process.env.HOSTS ?? 5000);
const CHANGES = Number(process.env.CHANGES ?? 5);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const TICK_MS = 10;
const ONLY = process.env.PROJECTION_WRITES_ONLY?.split(',').map((n) => n.trim());

interface Build {
  name: string;
  Store: new (options: { file: string }) => {
    collection(name: string): unknown;
    flush(): Promise<void>;
    close(): Promise<void>;
  };
  projections: {
    name: string;
    setup?(ctx: unknown): Promise<void>;
    apply(event: unknown, ctx: unknown): Promise<void>;
  }[];
}

function loadBuild(name: string, dist: string): Build {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { EmbeddedReadStore } = require(join(dist, 'libs/readstore/embedded/embedded-read-store.js'));
  const { domainsProjection } = require(join(dist, 'projections/domains.projection.js'));
  const { uptimeDomainsProjection } = require(join(dist, 'projections/uptime-domains.projection.js'));
  const { historyProjection } = require(join(dist, 'projections/history.projection.js'));
  const { auditProjection } = require(join(dist, 'projections/audit.projection.js'));
  /* eslint-enable @typescript-eslint/no-require-imports */
  const all: Build['projections'] = [domainsProjection, uptimeDomainsProjection, historyProjection, auditProjection];
  return {
    name,
    Store: EmbeddedReadStore,
    projections: all.filter((p) => (ONLY ? ONLY.includes(p.name) : p.name !== 'audit')),
  };
}

/** CPU ms of this process's threads named `readstore`, and of the main thread. */
function threadCpu(): { main: number; readstore: number } {
  const out = { main: 0, readstore: 0 };
  for (const tid of readdirSync('/proc/self/task')) {
    let comm: string;
    let stat: string;
    try {
      comm = readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim();
      stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    } catch {
      continue;
    }
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ms = (Number(fields[11]) + Number(fields[12])) * TICK_MS;
    if (tid === String(process.pid)) out.main += ms;
    else if (comm === 'readstore') out.readstore += ms;
  }
  return out;
}

let position = 0;
const event = (type: string, data: object, revision: number) => ({
  id: `e${++position}`,
  streamId: `domain-${(data as { domain_id: number }).domain_id}`,
  revision,
  type,
  data,
  metadata: {
    actor: 'ddns',
    source_ip: '192.0.2.9',
    correlation_id: `c${position}`,
    account_id: (data as { account_id: number }).account_id,
  },
  position: BigInt(position),
  created: new Date(),
});

const contextOf = (store: { collection(name: string): unknown }) => {
  const ctx = {
    position: 0,
    firstDelivery: true,
    collection: (model: { name: string } | string) => store.collection(typeof model === 'string' ? model : model.name),
  };
  return ctx;
};

async function applyAll(build: Build, ctx: ReturnType<typeof contextOf>, e: ReturnType<typeof event>): Promise<void> {
  ctx.position = Number(e.position);
  for (const p of build.projections) await p.apply(e, ctx);
}

async function round(build: Build, base: number): Promise<{ main: number; readstore: number; updates: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'projection-writes-'));
  const file = join(dir, 'readmodels.db');
  try {
    let store = new build.Store({ file });
    let ctx = contextOf(store);
    for (const p of build.projections) await p.setup?.(ctx);
    const created = new Date().toISOString();
    for (let i = 0; i < HOSTS; i++) {
      const data = {
        domain_id: base + i,
        account_id: 1 + (i % 40),
        fqdn: `h${base + i}.bench.example`,
        record_type: 'A',
        record_ip: '10.0.0.1',
        ttl: 60,
        created_at: created,
      };
      await applyAll(build, ctx, event('DomainCreated', data, 0));
    }
    await store.close();
    // Reopened: every document on disk, none in memory.
    store = new build.Store({ file });
    ctx = contextOf(store);
    const order: number[] = [];
    for (let c = 0; c < CHANGES; c++) for (let i = 0; i < HOSTS; i++) order.push(i);
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [order[i], order[j]] = [order[j], order[i]];
    }
    const revisions = new Map<number, number>();
    const before = threadCpu();
    for (const i of order) {
      const revision = (revisions.get(i) ?? 0) + 1;
      revisions.set(i, revision);
      const at = new Date().toISOString();
      const data = {
        domain_id: base + i,
        account_id: 1 + (i % 40),
        fqdn: `h${base + i}.bench.example`,
        addresses: { ipv4: `10.${(revision >> 8) & 255}.${revision & 255}.${i & 255}`, ipv6: null },
        source: 'ddns',
        at,
      };
      // The DDNS command finds its host by fqdn first, which caches the host's `domains` document.
      if (build.projections.some((p) => p.name === 'domains'))
        await (ctx.collection('domains') as { findOne(f: object): Promise<unknown> }).findOne({ fqdn: data.fqdn });
      await applyAll(build, ctx, event('DomainAddressesChanged', data, revision));
    }
    await store.flush();
    const after = threadCpu();
    await store.close();
    return { main: after.main - before.main, readstore: after.readstore - before.readstore, updates: order.length };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const builds = [loadBuild('this build', join(__dirname, '..'))];
  if (process.env.PROJECTION_WRITES_OTHER_DIST)
    builds.push(loadBuild('other build', process.env.PROJECTION_WRITES_OTHER_DIST));
  const results = new Map<string, { main: number[]; readstore: number[] }>(
    builds.map((b) => [b.name, { main: [], readstore: [] }]),
  );
  let base = 0;
  for (let r = 1; r <= ROUNDS; r++) {
    // The order flips every round: neither build always runs second.
    for (const build of r % 2 ? builds : [...builds].reverse()) {
      const res = await round(build, (base += HOSTS));
      const main = (res.main * 1000) / res.updates;
      const readstore = (res.readstore * 1000) / res.updates;
      results.get(build.name)!.main.push(main);
      results.get(build.name)!.readstore.push(readstore);
      console.log(
        `round ${r} ${build.name}: ${res.updates} updates, main ${main.toFixed(1)} µs, readstore ${readstore.toFixed(1)} µs per update`,
      );
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  for (const [name, r] of results)
    console.log(
      `${name}: median main ${median(r.main).toFixed(1)} µs, readstore ${median(r.readstore).toFixed(1)} µs per update`,
    );
  console.log(`hosts ${HOSTS}, changes per host ${CHANGES}, rounds ${ROUNDS}`);
}

void main();
