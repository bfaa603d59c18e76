/**
 * Email-auth read API benchmark: authenticated GET of aggregate-report rows with paging
 * (the API's heaviest read) against a bare Fastify hello route, side by side in one run.
 *
 * The service runs as `npm start` runs it (the compiled server, its own process, embedded
 * stores), with a DNS server in this process standing in for "the world" so the zone can be
 * verified. Set-up goes through the public paths: account, zone, Enterprise add-on, 2FA,
 * an email_auth:read key, then REPORTS aggregate reports of ROWS_PER_REPORT rows (100,000
 * rows by default) through POST /admin/reports. The bench walks every report's rows with
 * limit=100 to collect the page URLs, then a separate load-generator process (undici)
 * cycles through those pages, each request with `Accept-Encoding: identity` (the JSON as
 * is) or `gzip` (what most clients send; the load generator reads the compressed bytes
 * without inflating them, as wrk or autocannon do):
 *  - cold: the service runs with EMAIL_AUTH_PAGE_CACHE_MB=0, so every request builds its
 *    page from the stored row blocks (what the first read of each page costs; with gzip,
 *    compressing it too);
 *  - cached: the service restarted on the same data with the default page cache, every
 *    page read once first; identity over all pages (the cache keeps the JSON of ~200 pages
 *    for identity clients, so cycling 1,000 inflates every answer) and over HOT_PAGES pages
 *    (answered from the kept JSON);
 *  each closed loop (CONCURRENCY connections, SECONDS) is followed by the bare Fastify hello
 *  route in the same round, for ROUNDS rounds: req/s of both, the ratio (target >= 0.3x),
 *  the CPU per request of both servers from /proc and of the load generator;
 *  - open loop at a fixed RATE (500 req/s) for SECONDS on cached pages: p50/p99 (target
 *    p99 <= 20 ms);
 *  - for reference only, bare Fastify sending a fixed JSON body of a row page's size (what
 *    moving that many bytes costs the server and the load generator, with no work behind it);
 *  - the encoding steps of a page (ETag, compression, inflating) before and after the
 *    `rowcold` change, side by side in this process on 100 of the real pages.
 *
 * The seed's limit of 60 requests a minute per key would stop a load test after a second:
 * the server runs with EMAIL_AUTH_API_RATE_LIMIT raised, and still counts every request in
 * the shared rate-limit store, so its cost is part of the figures.
 *
 * Run: npm run bench:email-auth-api
 *   env: EA_API_BENCH_REPORTS (20), EA_API_BENCH_ROWS (5000), EA_API_BENCH_ROUNDS (3),
 *        EA_API_BENCH_SECONDS (8), EA_API_BENCH_CONCURRENCY (32), EA_API_BENCH_RATE (500),
 *        EA_API_BENCH_NODE_ARGS (extra node flags for the server), EA_API_BENCH_COLD (0: no cold rounds),
 *        EA_API_BENCH_HOT_PAGES (150), EA_API_BENCH_BASELINE (dist/ of another build to interleave with this one)
 */
import { ChildProcess, spawn } from 'node:child_process';
import { get as httpGet } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { authenticator } from 'otplib';
import { DnsServer, ZoneIndex } from '../libs/dns-server';
import { generatedAggregateReport } from './dmarc/generated-report';
import { encodingCosts } from './email-auth-api/encoding-costs';
import { freePort } from './dns/processes';
import { deployedSpawn } from './support/start-command';
import { delegateInWorld } from './support/world-dns';

const REPORTS = Number(process.env.EA_API_BENCH_REPORTS ?? 20);
const ROWS_PER_REPORT = Number(process.env.EA_API_BENCH_ROWS ?? 5000);
const ROUNDS = Number(process.env.EA_API_BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.EA_API_BENCH_SECONDS ?? 8);
const CONCURRENCY = Number(process.env.EA_API_BENCH_CONCURRENCY ?? 32);
const RATE = Number(process.env.EA_API_BENCH_RATE ?? 500);
/** Pages whose JSON the default page cache keeps for identity clients (within its 8 MiB share). */
const HOT_PAGES = Number(process.env.EA_API_BENCH_HOT_PAGES ?? 150);
/** dist/ directory of another build to measure side by side, round by round (see main()). */
const BASELINE = process.env.EA_API_BENCH_BASELINE;
/** 0 skips the cold rounds (e.g. to profile the cached path alone). */
const COLD = process.env.EA_API_BENCH_COLD !== '0';
const ZONE = 'bench-reports.example';
const ADMIN = 'bench-admin-token-0123456789';
const UA = 'email-auth-api-bench/1.0';
const DIST = join(__dirname);
const SERVER_MAIN = join(__dirname, '..', 'apps', 'server', 'main.js');

interface LoadResult {
  requests: number;
  errors: number;
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  loadCpuSeconds: number;
}

/** CPU seconds (user + system) a process has used, from /proc (1/100 s ticks). */
function cpuSecondsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function api(
  url: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<any> {
  const res = await fetch(url + path, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), 'user-agent': UA, ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

function spawnServer(env: Record<string, string>, port: number, main = SERVER_MAIN): Promise<ChildProcess> {
  // EA_API_BENCH_NODE_ARGS: extra node flags for the server (e.g. --cpu-prof to see where a request's time goes).
  const nodeArgs = (process.env.EA_API_BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const deployed = deployedSpawn(main, env, nodeArgs);
  const child = spawn(process.execPath, deployed.args, { env: deployed.env, stdio: ['ignore', 'ignore', 'inherit'] });
  return (async () => {
    for (const deadline = Date.now() + 60_000; ;) {
      if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
      try {
        if ((await fetch(`http://127.0.0.1:${port}/health`)).ok) return child;
      } catch {
        /* not listening yet */
      }
      if (Date.now() > deadline) throw new Error('server did not start');
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
}

function spawnBareFastify(pageBytes: number): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [join(DIST, 'email-auth-api', 'bare-fastify.js')], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, BARE_PAGE_BYTES: String(pageBytes) },
  });
  return new Promise((resolve, reject) => {
    child.stdout!.once('data', (d: Buffer) => resolve({ child, port: Number(d.toString().trim()) }));
    child.once('exit', (code) => reject(new Error(`bare Fastify exited with ${code}`)));
  });
}

function load(spec: {
  origin: string;
  paths: string[];
  headers: Record<string, string>;
  seconds: number;
  concurrency?: number;
  rate?: number;
}): Promise<LoadResult> {
  // The spec (1,000 page URLs) goes in a file: too large for an environment variable.
  const file = join(mkdtempSync(join(tmpdir(), 'ea-api-load-')), 'spec.json');
  writeFileSync(file, JSON.stringify(spec));
  const child = spawn(process.execPath, [join(DIST, 'email-auth-api', 'load.js'), file], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  return new Promise((resolve, reject) =>
    child.once('exit', (code) => {
      rmSync(file, { force: true });
      if (code === 0) resolve(JSON.parse(out) as LoadResult);
      else reject(new Error(`load generator exited with ${code}`));
    }),
  );
}

interface Variant {
  name: string;
  spec: Parameters<typeof load>[0];
  /** The process serving it, whose CPU per request is read from /proc (asked when measured: servers are restarted). */
  pid: () => number;
}

/** Variants served by one server, started (or restarted) by `start` before they run in each round. */
interface VariantGroup {
  start?: () => Promise<void>;
  variants: Variant[];
}

interface RoundFigures {
  rps: number;
  bareRps: number;
  ratio: number;
  cpuMs: number;
  bareCpuMs: number;
}

/** Server CPU (ms) per request of one closed-loop run. */
async function measured(v: Variant): Promise<{ result: LoadResult; cpuMs: number }> {
  const pid = v.pid();
  const cpu0 = cpuSecondsOf(pid);
  const result = await load({ ...v.spec, concurrency: CONCURRENCY });
  return { result, cpuMs: ((cpuSecondsOf(pid) - cpu0) * 1000) / result.requests };
}

/**
 * ROUNDS rounds of closed loops, each group's variants then the bare hello in every round,
 * so each ratio compares runs seconds apart on a machine whose other load changes (and
 * two builds compared in interleaved groups share each round's conditions).
 */
async function closedRounds(
  groups: VariantGroup[],
  hello: Omit<Variant, 'name'>,
): Promise<Array<[string, RoundFigures[]]>> {
  const figures = new Map<string, RoundFigures[]>(groups.flatMap((g) => g.variants).map((v) => [v.name, []]));
  for (let r = 1; r <= ROUNDS; r++) for (const group of groups) await groupRound(r, group, hello, figures);
  return [...figures];
}

async function groupRound(
  r: number,
  group: VariantGroup,
  hello: Omit<Variant, 'name'>,
  figures: Map<string, RoundFigures[]>,
): Promise<void> {
  {
    await group.start?.();
    const runs = [];
    for (const v of group.variants) runs.push({ v, ...(await measured(v)) });
    const bare = await measured({ name: 'hello', ...hello });
    for (const { v, result, cpuMs } of runs) {
      figures.get(v.name)!.push({
        rps: result.rps,
        bareRps: bare.result.rps,
        ratio: result.rps / bare.result.rps,
        cpuMs,
        bareCpuMs: bare.cpuMs,
      });
      // CPU per request is the steadier comparison on a shared machine: req/s depends on what else runs.
      console.log(
        `  round ${r}, ${v.name}: ${result.rps.toFixed(0)} req/s (p50 ${ms(result.p50)}, p99 ${ms(result.p99)}, ` +
          `errors ${result.errors}, server CPU ${cpuMs.toFixed(3)} ms/req) | ` +
          `bare Fastify hello ${bare.result.rps.toFixed(0)} req/s (p99 ${ms(bare.result.p99)}, CPU ` +
          `${bare.cpuMs.toFixed(3)} ms/req) | ratio ${(result.rps / bare.result.rps).toFixed(2)}x by req/s; ` +
          `load generator CPU ${perReqMs(result)} vs ${perReqMs(bare.result)} ms/req; load average ${loadavg()[0].toFixed(1)}`,
      );
    }
  }
}

/** Bytes of a GET's body as sent (node:http does not inflate, unlike fetch). */
function wireBytes(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) =>
    httpGet(url, { headers }, (res) => {
      let n = 0;
      res.on('data', (c: Buffer) => (n += c.length));
      res.on('end', () => resolve(n));
    }).on('error', reject),
  );
}

const ms = (n: number) => `${n.toFixed(1)} ms`;
/** The load generator's own CPU per request (it parses every answer: large bodies cost it too). */
const perReqMs = (r: LoadResult) => ((r.loadCpuSeconds * 1000) / r.requests).toFixed(3);

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'ea-api-bench-'));
  const world = new ZoneIndex();
  const worldServer = new DnsServer({ host: '127.0.0.1', port: 0, index: world });
  const { port: worldPort } = await worldServer.start();
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const serverEnv: Record<string, string> = {
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    DNS_PORT: String(await freePort()),
    SMTP_PORT: '0',
    ADMIN_TOKEN: ADMIN,
    SECRET_KEY: 'bench-secret-key',
    LOG_REQUESTS: 'false',
    VERIFY_RESOLVER: `127.0.0.1:${worldPort}`,
    EMAIL_AUTH_API_RATE_LIMIT: '100000000',
    EMAIL_AUTH_PAGE_CACHE_MB: '0',
  };
  let server = await spawnServer(serverEnv, port);
  let bare: { child: ChildProcess; port: number } | null = null;
  try {
    // Account, verified zone in the Enterprise add-on, 2FA, key: the public set-up path.
    const admin = { 'x-admin-token': ADMIN };
    const account = await api(url, 'POST', '/auth/register', {
      username: 'eaapibench',
      email: 'eaapibench@example.com',
      password: 'a-long-enough-password',
    });
    await api(url, 'PUT', `/admin/accounts/${account.id}/subscription`, { plan: 'pro' }, admin);
    const session = {
      authorization: `Bearer ${(await api(url, 'POST', '/auth/login', { username: 'eaapibench', password: 'a-long-enough-password' })).access_token}`,
    };
    const zone = await api(url, 'POST', '/zones', { name: ZONE }, session);
    world.putZone({
      name: ZONE,
      ownerAccountId: null,
      soa: {
        mname: 'ns1.example.net',
        rname: `hostmaster.${ZONE}`,
        serial: 1,
        refresh: 1,
        retry: 1,
        expire: 1,
        minimum: 60,
      },
      ttl: 60,
      nameservers: zone.nameservers,
    });
    delegateInWorld(world, ZONE, zone.nameservers);
    await api(url, 'POST', `/zones/${ZONE}/verify`, undefined, session);
    await api(
      url,
      'PUT',
      `/admin/accounts/${account.id}/subscription`,
      { email_auth: { tier: 'enterprise', domains: [ZONE] } },
      admin,
    );
    const setup = await api(url, 'POST', '/2fa/setup', undefined, session);
    await api(
      url,
      'POST',
      '/2fa/verify',
      { setup_token: setup.setup_token, code: authenticator.generate(setup.secret) },
      session,
    );
    const key = (await api(url, 'POST', '/api-keys', { name: 'bench', access: 'email_auth:read' }, session))
      .key as string;
    const auth = { authorization: `Bearer ${key}`, 'user-agent': UA };

    // 100k rows through the public ingestion path.
    const t0 = Date.now();
    const ids: string[] = [];
    const day = Math.floor(Date.now() / 86_400_000) * 86_400;
    for (let i = 0; i < REPORTS; i++) {
      const gz = gzipSync(
        generatedAggregateReport(ROWS_PER_REPORT, {
          reportId: `bench-${i}`,
          domain: ZONE,
          begin: day - (i % 25) * 86_400,
        }),
      );
      const res = await fetch(`${url}/admin/reports`, {
        method: 'POST',
        headers: { 'content-type': 'application/gzip', ...admin },
        body: gz,
      });
      if (res.status !== 201) throw new Error(`report refused: ${res.status} ${await res.text()}`);
      ids.push(((await res.json()) as { id: string }).id);
    }
    console.log(
      `stored ${REPORTS * ROWS_PER_REPORT} aggregate rows in ${REPORTS} reports through POST /admin/reports in ` +
        `${((Date.now() - t0) / 1000).toFixed(1)} s`,
    );

    // Every page of every report (limit=100), following next_cursor: the URLs the load cycles through.
    const paths: string[] = [];
    for (const id of ids) {
      let cursor: string | null = null;
      do {
        const path: string = `/api/v1/email-auth/dmarc/reports/${id}?limit=100${cursor ? `&cursor=${cursor}` : ''}`;
        paths.push(path);
        const body: { rows: { data: unknown[]; next_cursor: string | null } } = await api(
          url,
          'GET',
          path,
          undefined,
          auth,
        );
        cursor = body.rows.next_cursor;
      } while (cursor);
    }
    const pageBytes = (
      await (await fetch(url + paths[1], { headers: { ...auth, 'accept-encoding': 'identity' } })).arrayBuffer()
    ).byteLength;
    const gzipBytes = await wireBytes(url + paths[1], { ...auth, 'accept-encoding': 'gzip' });
    console.log(
      `${paths.length} row pages of 100 (each answer ~${(pageBytes / 1024).toFixed(0)} KiB of JSON, ` +
        `~${(gzipBytes / 1024).toFixed(1)} KiB gzip-compressed)`,
    );
    // The encoding steps alone, before and after (in this process, on 100 of the real pages).
    const bodies: Buffer[] = [];
    for (const path of paths.slice(0, 100))
      bodies.push(
        Buffer.from(
          await (await fetch(url + path, { headers: { ...auth, 'accept-encoding': 'identity' } })).arrayBuffer(),
        ),
      );
    console.log('encoding a page (CPU per page, measured side by side in the bench process):');
    for (const line of encodingCosts(bodies)) console.log(line);
    bare = await spawnBareFastify(pageBytes);
    const bareChild = bare.child;

    // One request at a time: where a request's time goes, before any load.
    const sequential = async (path: string, headers: Record<string, string>) => {
      const times: number[] = [];
      for (let i = 0; i < 50; i++) {
        const t = process.hrtime.bigint();
        await (await fetch(url + path, { headers })).arrayBuffer();
        times.push(Number(process.hrtime.bigint() - t) / 1e6);
      }
      return times.sort((a, b) => a - b)[25];
    };
    console.log(
      `sequential medians: /health ${ms(await sequential('/health', {}))}, /api/v1/email-auth/domains ` +
        `${ms(await sequential('/api/v1/email-auth/domains', auth))}, ` +
        `row page ${ms(await sequential(paths[5], auth))}, report list ${ms(await sequential('/api/v1/email-auth/dmarc/reports?limit=100', auth))}`,
    );

    // Identity: what a client sending no Accept-Encoding gets. Gzip: what most clients get
    // (the load generator reads the compressed bytes and does not inflate them, as wrk or
    // autocannon do not).
    const identity = { origin: url, paths, headers: { ...auth, 'accept-encoding': 'identity' }, seconds: SECONDS };
    const gzip = { ...identity, headers: { ...auth, 'accept-encoding': 'gzip' } };
    const baseline = { origin: `http://127.0.0.1:${bare.port}`, paths: ['/hello'], headers: {}, seconds: SECONDS };

    // EA_API_BENCH_BASELINE: the dist/ of another build (e.g. the commit before a change, built
    // in a scratch copy). Each round then runs the baseline's group and this build's group one
    // after the other, each on a freshly started server over the same store, so both builds
    // are measured under the same moment's machine load.
    const builds: Array<{ label: string; main: string }> = [
      ...(BASELINE ? [{ label: 'baseline ', main: join(BASELINE, 'apps', 'server', 'main.js') }] : []),
      { label: '', main: SERVER_MAIN },
    ];
    const restart = async (env: Record<string, string>, main: string, warm: boolean) => {
      server.kill('SIGTERM');
      await new Promise((r) => server.once('exit', r));
      server = await spawnServer(env, port, main);
      // Warm: every page read once (cached runs), or the first 200 (cold runs: the IP data
      // loads and the code is compiled before the measured requests, as on a server up for a while).
      for (const path of warm ? paths : paths.slice(0, 200))
        await (await fetch(url + path, { headers: auth })).arrayBuffer();
    };
    const serverPid = () => server.pid!;
    const hello = { spec: baseline, pid: () => bareChild.pid! };

    // Cold: this server runs without the page cache, so every request builds its page
    // from the stored row blocks, as the first read of each page does.
    console.log(`cold pages (EMAIL_AUTH_PAGE_CACHE_MB=0: every page built from its row blocks on every request):`);
    const cold = COLD
      ? await closedRounds(
          builds.map(({ label, main }) => ({
            start: BASELINE ? () => restart(serverEnv, main, false) : undefined,
            variants: [
              { name: `${label}cold, identity`, spec: identity, pid: serverPid },
              { name: `${label}cold, gzip`, spec: gzip, pid: serverPid },
            ],
          })),
          hello,
        )
      : [];

    // Cached: the same store served by a server with the default page cache, every page read once first.
    const { EMAIL_AUTH_PAGE_CACHE_MB: _off, ...cachedEnv } = serverEnv;
    if (!BASELINE) await restart(cachedEnv, SERVER_MAIN, true);
    console.log(`cached pages (default EMAIL_AUTH_PAGE_CACHE_MB, every page read once before):`);
    // Identity bodies kept by the cache: up to half of its 16 MiB, ~200 pages of ~39 KiB. Cycling
    // all 1,000 pages in order is worse than that fits (the cache keeps a stable ~200 and
    // inflates the rest); HOT_PAGES pages fit and are answered from the kept JSON.
    const hotIdentity = { ...identity, paths: paths.slice(0, HOT_PAGES) };
    const cached = await closedRounds(
      builds.map(({ label, main }) => ({
        start: BASELINE ? () => restart(cachedEnv, main, true) : undefined,
        variants: [
          { name: `${label}cached, gzip`, spec: gzip, pid: serverPid },
          { name: `${label}cached, identity`, spec: identity, pid: serverPid },
          { name: `${label}cached, identity, ${HOT_PAGES} hot pages`, spec: hotIdentity, pid: serverPid },
        ],
      })),
      hello,
    );
    if (BASELINE) await restart(cachedEnv, SERVER_MAIN, true); // the open loops below measure this build
    // The median round, not the best: on a shared machine one round's hello can collapse and flatter the ratio.
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    for (const [name, rounds] of [...cold, ...cached]) {
      console.log(
        `authenticated GET /dmarc/reports/{id}?limit=100&cursor=… ${name}: median ratio ` +
          `${median(rounds.map((x) => x.ratio)).toFixed(2)}x of bare Fastify hello by req/s ` +
          `(rounds ${rounds.map((x) => x.ratio.toFixed(2)).join(', ')}) [target >= 0.3x], ${CONCURRENCY} ` +
          `connections; median ${median(rounds.map((x) => x.rps)).toFixed(0)} req/s ` +
          `vs ${median(rounds.map((x) => x.bareRps)).toFixed(0)}; server CPU per request, median ` +
          `${median(rounds.map((x) => x.cpuMs)).toFixed(3)} ms vs ` +
          `${median(rounds.map((x) => x.bareCpuMs)).toFixed(3)} ms`,
      );
    }

    // For reference, not the target: bare Fastify sending an already-serialised body of a row page's size.
    const pageCpu0 = cpuSecondsOf(bareChild.pid!);
    const bp = await load({ ...baseline, paths: ['/page'], concurrency: CONCURRENCY });
    console.log(
      `reference: bare Fastify sending a fixed ${(pageBytes / 1024).toFixed(0)} KiB JSON body: ${bp.rps.toFixed(0)} req/s, server CPU ` +
        `${(((cpuSecondsOf(bareChild.pid!) - pageCpu0) * 1000) / bp.requests).toFixed(3)} ms/req, load generator CPU ${perReqMs(bp)} ms/req`,
    );

    for (const [name, spec] of [
      ['cached, gzip', gzip],
      ['cached, identity', identity],
      [`cached, identity, ${HOT_PAGES} hot pages`, hotIdentity],
    ] as const) {
      const fixed = await load({ ...spec, rate: RATE });
      console.log(
        `fixed ${RATE} req/s for ${SECONDS} s, ${name}: service ${fixed.requests} requests, errors ` +
          `${fixed.errors}, p50 ${ms(fixed.p50)}, p90 ${ms(fixed.p90)}, p99 ${ms(fixed.p99)}, max ` +
          `${ms(fixed.max)} [target p99 <= 20 ms]`,
      );
    }
    const fixedBare = await load({ ...baseline, rate: RATE });
    console.log(`fixed ${RATE} req/s, bare Fastify hello: p99 ${ms(fixedBare.p99)}`);
    console.log(
      `machine load average now: ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')} (2 cores, shared)`,
    );
    console.log(
      'figures from a shared, loaded 2-core machine: compare the ratio and CPU per request, not absolute req/s',
    );
  } finally {
    bare?.child.kill('SIGTERM');
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    await worldServer.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
