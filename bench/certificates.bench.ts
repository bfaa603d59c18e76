/**
 * Certificates benchmark: N certificates for N distinct names requested at once from the
 * real service (`dist/apps/server/main.js`, its own process) and issued by Debian's
 * pebble, which validates every DNS-01 challenge against the service's own DNS server.
 * ACME_PROPAGATION_DELAY_MS=0; pebble with PEBBLE_VA_NOSLEEP=1. Zones are verified
 * through pebble-challtestsrv (VERIFY_RESOLVER). Each account (Elite) gets its own zone
 * and at most 50 names, the CA's per-registered-domain weekly limit.
 *
 * Prints certificates per second (first request to last issued) and p50/p99/max of the
 * time from each request to its `issued`, as seen by a client polling the list every
 * 100 ms. Target: 50 concurrent orders all issued, p99 under 10 s.
 *
 * Run: npm run bench:certificates   env: CERT_BENCH_N (50)
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startChallTestSrv, startPebble } from './support/pebble';

const N = Number(process.env.CERT_BENCH_N ?? 50);
const PER_ACCOUNT = 50;
const ADMIN_TOKEN = 'bench-admin-token';
const TIMEOUT_MS = 180_000;

type Json = any;

async function main(): Promise<void> {
  const dnsPort = await freePort();
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'adns-cert-bench-'));
  const world = await startChallTestSrv();
  const pebble = await startPebble(dnsPort);
  let out = '';
  const server = spawn(process.execPath, [join(__dirname, '..', 'apps', 'server', 'main.js')], {
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      DNS_PORT: String(dnsPort),
      ADMIN_TOKEN,
      LOG_REQUESTS: 'false',
      VERIFY_RESOLVER: world.resolver,
      ACME_DIRECTORY_URL: pebble.directoryUrl,
      ACME_CA_CERT: pebble.caCertFile,
      ACME_PROPAGATION_DELAY_MS: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stdout!.on('data', (d) => (out += d));
  server.stderr!.on('data', (d) => (out += d));
  const base = `http://127.0.0.1:${port}`;
  const call = async (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; body: Json }> => {
    const res = await fetch(base + path, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  try {
    for (const started = Date.now(); ;) {
      if ((await call('GET', '/health').catch(() => ({ status: 0 }))).status === 200) break;
      if (Date.now() - started > 30_000 || server.exitCode !== null) throw new Error(`server did not start: ${out}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const accounts: Array<{ token: string; zone: string; names: string[] }> = [];
    for (let a = 0; a * PER_ACCOUNT < N; a++) {
      const username = `bench${a}`;
      const password = 'a-long-enough-password';
      const reg = await call('POST', '/auth/register', { username, email: `${username}@example.com`, password });
      await call(
        'PUT',
        `/admin/accounts/${reg.body.id}/subscription`,
        { plan: 'elite' },
        { 'x-admin-token': ADMIN_TOKEN },
      );
      const token = (await call('POST', '/auth/login', { username, password })).body.access_token;
      const auth = { authorization: `Bearer ${token}` };
      const zone = `bench${a}.example`;
      const imported = await call('POST', '/zones', { name: zone }, auth);
      await world.setTxt(imported.body.verification.record_name, imported.body.verification.record_value);
      const verified = await call('POST', `/zones/${zone}/verify`, undefined, auth);
      if (verified.body.status !== 'verified') throw new Error(`zone not verified: ${JSON.stringify(verified.body)}`);
      const count = Math.min(PER_ACCOUNT, N - a * PER_ACCOUNT);
      accounts.push({ token, zone, names: Array.from({ length: count }, (_, i) => `n${i}.${zone}`) });
    }

    const requestedAt = new Map<string, number>();
    const doneAt = new Map<string, { at: number; status: string }>();
    const t0 = Date.now();
    await Promise.all(
      accounts.flatMap((acc) =>
        acc.names.map(async (domain) => {
          const sent = Date.now();
          const res = await call(
            'POST',
            '/certificates',
            { zone: acc.zone, domain },
            { authorization: `Bearer ${acc.token}` },
          );
          if (res.status !== 202) throw new Error(`create ${domain}: ${res.status} ${JSON.stringify(res.body)}`);
          requestedAt.set(res.body.id, sent);
        }),
      ),
    );
    const accepted = Date.now() - t0;
    while (doneAt.size < N && Date.now() - t0 < TIMEOUT_MS) {
      for (const acc of accounts) {
        const list = await call('GET', '/certificates', undefined, { authorization: `Bearer ${acc.token}` });
        const now = Date.now();
        for (const c of list.body.certificates) {
          if ((c.status === 'issued' || c.status === 'failed') && !doneAt.has(c.id))
            doneAt.set(c.id, { at: now, status: c.status });
        }
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    const issued = [...doneAt].filter(([, d]) => d.status === 'issued');
    const latencies = issued.map(([id, d]) => d.at - requestedAt.get(id)!).sort((a, b) => a - b);
    const pct = (p: number) =>
      latencies[Math.min(latencies.length - 1, Math.ceil((p / 100) * latencies.length) - 1)] ?? NaN;
    const last = Math.max(...issued.map(([, d]) => d.at));
    const seconds = (last - t0) / 1000;
    const metrics = await (await fetch(`${base}/metrics`)).text();
    console.log(`certificates bench: ${N} concurrent orders against pebble (ACME_PROPAGATION_DELAY_MS=0)`);
    console.log(`  accepted (all 202s)      ${accepted} ms`);
    console.log(
      `  issued                   ${issued.length}/${N}   failed ${doneAt.size - issued.length}   unfinished ${N - doneAt.size}`,
    );
    console.log(`  orders at pebble         ${pebble.orderCount()}`);
    console.log(
      `  throughput               ${(issued.length / seconds).toFixed(2)} certificates/s (${seconds.toFixed(2)} s first request to last issued)`,
    );
    console.log(
      `  request → issued         p50 ${(pct(50) / 1000).toFixed(2)} s   p99 ${(pct(99) / 1000).toFixed(2)} s   ` +
        `max ${(latencies[latencies.length - 1] / 1000).toFixed(2)} s`,
    );
    console.log(
      `  server metric            ${metrics
        .split('\n')
        .filter(
          (l) =>
            l.startsWith('acme_orders_total') ||
            l.startsWith('acme_issuance_duration_seconds_sum') ||
            l.startsWith('acme_issuance_duration_seconds_count'),
        )
        .join('  ')}`,
    );
    if (process.env.CERT_BENCH_TRACE) {
      const slowest = issued.sort(
        (a, b) => b[1].at - requestedAt.get(b[0])! - (a[1].at - requestedAt.get(a[0])!),
      )[0][0];
      const owner = accounts.find(() => true)!;
      for (const acc of accounts) {
        const logs = await call('GET', `/certificates/${slowest}/logs`, undefined, {
          authorization: `Bearer ${acc.token}`,
        });
        if (logs.status === 200) for (const l of logs.body.logs) console.log(`    ${l.at} ${l.message}`);
      }
      void owner;
    }
    if (issued.length < N || pct(99) > 10_000) process.exitCode = 1;
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    await pebble.stop();
    await world.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
