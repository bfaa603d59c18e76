/**
 * Email-authentication records benchmark: a settings PUT (DMARC) → events on the zone's
 * email-auth stream → zone record event → the DNS server answers the new `_dmarc` record.
 * Runs the service in-process on the embedded stores, with a second DNS server standing in
 * for "the world" so zones can be verified. Prints settings changes/s, PUT latency and the
 * change-to-served latency (the contract asks for one second), sequential and with
 * CONCURRENCY zones changing at once, and the peak RSS.
 *
 * Run: npm run bench:email-auth   env: EA_BENCH_CHANGES (300), EA_BENCH_CONCURRENCY (8)
 */
import 'reflect-metadata';
import { createSocket } from 'node:dgram';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as dnsPacket from 'dns-packet';
import { createApp } from '../apps/server/app';
import { DnsServer, ZoneIndex } from '../libs/dns-server';
import { loadConfig } from '../libs/shared/config';
import { jsonLogger } from '../libs/shared/logger';
import { delegateInWorld } from './support/world-dns';

const CHANGES = Number(process.env.EA_BENCH_CHANGES ?? 300);
const CONCURRENCY = Number(process.env.EA_BENCH_CONCURRENCY ?? 8);
const ADMIN = 'bench-admin-token-0123456789';

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });

async function txt(port: number, name: string): Promise<string[]> {
  const socket = createSocket('udp4');
  const id = Math.floor(Math.random() * 65535);
  try {
    return await new Promise<string[]>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer for ${name}`)), 2000);
      socket.on('message', (m) => {
        const p = dnsPacket.decode(m);
        if (p.id !== id) return;
        clearTimeout(timer);
        resolve(
          (p.answers ?? [])
            .filter((a) => a.type === 'TXT')
            .map((a) => (a.data as Buffer[]).map((b) => b.toString()).join('')),
        );
      });
      socket.send(dnsPacket.encode({ type: 'query', id, questions: [{ type: 'TXT', name }] }), port, '127.0.0.1');
    });
  } finally {
    socket.close();
  }
}

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const fmt = (xs: number[]) =>
  `p50 ${pct(xs, 50).toFixed(1)} ms, p90 ${pct(xs, 90).toFixed(1)} ms, p99 ${pct(xs, 99).toFixed(1)} ms, max ${Math.max(...xs).toFixed(1)} ms`;

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'ea-bench-'));
  const world = new ZoneIndex();
  const worldServer = new DnsServer({ host: '127.0.0.1', port: 0, index: world });
  const { port: worldPort } = await worldServer.start();
  const dnsPort = await freePort();
  const config = loadConfig(
    {
      DATA_DIR: dataDir,
      ADMIN_TOKEN: ADMIN,
      SECRET_KEY: 'bench-secret',
      LOG_REQUESTS: 'false',
      DNS_PORT: String(dnsPort),
      VERIFY_RESOLVER: `127.0.0.1:${worldPort}`,
    },
    { port: 0, host: '127.0.0.1' },
  );
  const running = await createApp(config, { logger: jsonLogger(process.stdout, false) });
  await running.app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(running.app.getHttpServer().address() as { port: number }).port}`;
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(base + path, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return text ? JSON.parse(text) : null;
  };
  let peakRss = process.memoryUsage().rss;
  const rssTimer = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 50);

  try {
    const account = await call('POST', '/auth/register', {
      username: 'eabench',
      email: 'eabench@example.net',
      password: 'bench-password-123',
    });
    // Elite: the bench's zones are more than a Free plan's two (contract §16).
    await call('PUT', `/admin/accounts/${account.id}/subscription`, { plan: 'elite' }, { 'x-admin-token': ADMIN });
    const { access_token: token } = await call('POST', '/auth/login', {
      username: 'eabench',
      password: 'bench-password-123',
    });
    const auth = { authorization: `Bearer ${token}` };
    const zones = Array.from({ length: CONCURRENCY }, (_, i) => `ea-bench-${i}.net`);
    for (const zone of zones) {
      const z = await call('POST', '/zones', { name: zone }, auth);
      world.putZone({
        name: zone,
        ownerAccountId: null,
        soa: { mname: 'ns1.example.net', rname: `h.${zone}`, serial: 1, refresh: 1, retry: 1, expire: 1, minimum: 60 },
        ttl: 60,
        nameservers: z.nameservers,
      });
      delegateInWorld(world, zone, z.nameservers);
      await call('POST', `/zones/${zone}/verify`, undefined, auth);
    }
    await call(
      'PUT',
      `/admin/accounts/${account.id}/subscription`,
      { email_auth: { tier: 'standard', domains: zones } },
      { 'x-admin-token': ADMIN },
    );

    /** One change: PUT a new percentage, then poll DNS until it is served. */
    let n = 0;
    const change = async (zone: string) => {
      const percentage = (n++ % 99) + 1;
      const expected = `v=DMARC1; p=quarantine; pct=${percentage}; t=y; rua=mailto:dmarc@${zone}`;
      const started = performance.now();
      await call(
        'PUT',
        `/email-auth/domains/${zone}/dmarc`,
        { policy: 'quarantine', percentage, rua: [`mailto:dmarc@${zone}`] },
        auth,
      );
      const answered = performance.now();
      while (!(await txt(dnsPort, `_dmarc.${zone}`)).includes(expected)) await new Promise((r) => setTimeout(r, 1));
      return { put: answered - started, served: performance.now() - started };
    };

    for (let i = 0; i < 20; i++) await change(zones[0]); // warm-up (JIT, caches)

    const seq = { put: [] as number[], served: [] as number[] };
    let t0 = performance.now();
    for (let i = 0; i < CHANGES; i++) {
      const r = await change(zones[0]);
      seq.put.push(r.put);
      seq.served.push(r.served);
    }
    const seqSeconds = (performance.now() - t0) / 1000;

    const par = { put: [] as number[], served: [] as number[] };
    t0 = performance.now();
    await Promise.all(
      zones.map(async (zone) => {
        for (let i = 0; i < Math.ceil(CHANGES / CONCURRENCY); i++) {
          const r = await change(zone);
          par.put.push(r.put);
          par.served.push(r.served);
        }
      }),
    );
    const parSeconds = (performance.now() - t0) / 1000;

    console.log(`email-auth records: ${CHANGES} DMARC changes, one zone, one after another`);
    console.log(`  ${(CHANGES / seqSeconds).toFixed(0)} changes/s (each waited until served)`);
    console.log(`  PUT answered:       ${fmt(seq.put)}`);
    console.log(`  change -> served:   ${fmt(seq.served)}  (contract: within 1000 ms)`);
    console.log(`email-auth records: ${par.put.length} DMARC changes, ${CONCURRENCY} zones at once`);
    console.log(`  ${(par.put.length / parSeconds).toFixed(0)} changes/s`);
    console.log(`  PUT answered:       ${fmt(par.put)}`);
    console.log(`  change -> served:   ${fmt(par.served)}`);
    console.log(`peak RSS (service and client in one process): ${(peakRss / 1024 / 1024).toFixed(0)} MB`);
  } finally {
    clearInterval(rssTimer);
    await running.close();
    await worldServer.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
