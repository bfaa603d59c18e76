/**
 * `npm run bench:transfer` (issue 25): the service as a primary, side by side with NSD as
 * primary of the same zone. Prints:
 *  - AXFR of a 100k-record zone: time (and the service's resident memory growth) vs NSD;
 *  - IXFR after 1,000 changes: time, records, and that it was incremental;
 *  - NOTIFY-to-served latency on an NSD secondary (p50/p99 over 50 changes);
 *  - query qps (dnsperf, 5 s) without transfers and during 10 concurrent AXFR loops, for both.
 * Targets: AXFR ≤ 1.5× NSD's time; propagation p99 ≤ 2 s; qps during transfers ≥ 0.8× without.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import * as net from 'node:net';
import * as dgram from 'node:dgram';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as dnsPacket from 'dns-packet';
import { maxThroughput } from './dns/dnsperf';
import { freePort, startProcess, stopAllOnExit, stopProcess } from './dns/processes';
import { nsdServerConfig } from './dns/nsd-config';
import { deployedSpawn } from './support/start-command';
import { signMessage, TsigKey } from '../libs/dns-transfer/tsig';

const ZONE = 'xfr-bench.test';
const RRSETS = 1000;
const PER_RRSET = 100; // 100,000 A records
const ADMIN_TOKEN = 'xfr-bench-admin-token-0123456789';
const KEY: TsigKey = { name: 'bench-xfr', algorithm: 'hmac-sha256', secret: randomBytes(32) };
const ip = (i: number, j: number) => `10.${(i >> 8) & 255}.${i & 255}.${j + 1}`;

async function api(base: string, method: string, path: string, body?: unknown, token?: string): Promise<any> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      'content-type': 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(path.startsWith('/admin') ? { 'x-admin-token': ADMIN_TOKEN } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

/** One AXFR (or IXFR from `serial`) over TCP; resolves with the records received and the time taken. */
function transfer(
  port: number,
  type: 'AXFR' | 'IXFR',
  signed: boolean,
  serial?: number,
): Promise<{ records: number; ms: number; incremental: boolean }> {
  const started = performance.now();
  let query = dnsPacket.encode({
    type: 'query',
    id: 1,
    questions: [{ name: ZONE, type }],
    authorities:
      serial === undefined
        ? []
        : [
            {
              name: ZONE,
              type: 'SOA',
              data: { mname: 'a', rname: 'b', serial, refresh: 0, retry: 0, expire: 0, minimum: 0 },
            } as dnsPacket.Answer,
          ],
  });
  if (signed) query = signMessage(query, KEY, { nowSeconds: Math.floor(Date.now() / 1000) }).message;
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const frame = Buffer.alloc(2);
    frame.writeUInt16BE(query.length);
    socket.write(Buffer.concat([frame, query]));
    let pending = Buffer.alloc(0);
    let records = 0;
    // The answer ends with the current SOA: twice for a full answer, three times for an incremental one (RFC 1995 §4).
    let current: number | null = null;
    let seenCurrent = 0;
    let incremental = false;
    socket.on('data', (chunk) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 2 && pending.length >= 2 + pending.readUInt16BE(0)) {
        const msg = pending.subarray(2, 2 + pending.readUInt16BE(0));
        pending = pending.subarray(2 + msg.length);
        const ancount = msg.readUInt16BE(6);
        records += ancount;
        if ((msg[3] & 0x0f) !== 0) return reject(new Error(`${type}: rcode ${msg[3] & 0x0f}`));
        const answers = dnsPacket.decode(msg).answers ?? [];
        answers.forEach((a, i) => {
          if (a.type !== 'SOA') return;
          const s = ((a as { data?: unknown }).data as { serial: number }).serial;
          if (current === null) current = s;
          if (s === current) seenCurrent++;
          if (records - ancount + i === 1) incremental = true;
        });
        const single = type === 'IXFR' && records === 1;
        if (single || seenCurrent >= (incremental ? 3 : 2)) {
          socket.destroy();
          return resolve({ records, ms: performance.now() - started, incremental });
        }
      }
    });
    socket.on('error', reject);
  });
}

const rssMiB = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
const pct = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(p * values.length))];

function udpQuery(port: number, name: string): Promise<string[]> {
  return new Promise((resolve) => {
    const s = dgram.createSocket('udp4');
    const timer = setTimeout(() => (s.close(), resolve([])), 500);
    s.on('message', (m) => {
      clearTimeout(timer);
      s.close();
      resolve((dnsPacket.decode(m).answers ?? []).map((a) => String((a as { data?: unknown }).data)));
    });
    s.send(dnsPacket.encode({ type: 'query', id: 2, questions: [{ name, type: 'A' }] }), port, '127.0.0.1');
  });
}

async function main(): Promise<void> {
  stopAllOnExit();
  const dir = mkdtempSync(join(tmpdir(), 'xfr-bench-'));
  const [dnsPort, httpPort, nsdPrimaryPort, nsdSecondaryPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  const keySpec = `${KEY.name}:${KEY.algorithm}:${KEY.secret.toString('base64')}`;
  const env = {
    ...process.env,
    DATA_DIR: join(dir, 'service'),
    HOST: '127.0.0.1',
    PORT: String(httpPort),
    DNS_HOST: '127.0.0.1',
    DNS_PORT: String(dnsPort),
    ADMIN_TOKEN,
    SECRET_KEY: 'xfr-bench-secret',
    LOG_REQUESTS: 'false',
    SMTP_PORT: '0',
    SECONDARIES: `127.0.0.1:${nsdSecondaryPort}`,
    SECONDARY_TSIG_KEY: keySpec,
  };
  const deployed = deployedSpawn(join(__dirname, '..', 'apps', 'server', 'main.js'), env);
  const service = startProcess(process.execPath, deployed.args, 'service', deployed.env);
  service.stdout!.resume();
  const base = `http://127.0.0.1:${httpPort}`;
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${base}/health`)).ok) break;
    } catch {
      /* not yet */
    }
    if (i > 300) throw new Error('service did not start');
    await new Promise((r) => setTimeout(r, 200));
  }
  const user = { username: 'xfrbench', email: 'xfrbench@example.com', password: 'a-long-enough-password' };
  const { id } = await api(base, 'POST', '/auth/register', user);
  await api(base, 'PUT', `/admin/accounts/${id}/subscription`, { plan: 'elite' });
  const { access_token: token } = await api(base, 'POST', '/auth/login', {
    username: user.username,
    password: user.password,
  });
  await api(base, 'POST', '/zones', { name: ZONE }, token);
  const rrsets = Array.from({ length: RRSETS }, (_, i) => ({
    subname: `h${i}`,
    type: 'A',
    ttl: 300,
    records: Array.from({ length: PER_RRSET }, (_, j) => ip(i, j)),
  }));
  for (let at = 0; at < RRSETS; at += 200)
    await api(base, 'PUT', `/zones/${ZONE}/records`, { records: rrsets.slice(at, at + 200) }, token);

  // NSD as primary of the same records.
  const nsdDir = join(dir, 'nsd-primary');
  const zoneLines = [
    `$ORIGIN ${ZONE}.`,
    `@ 3600 IN SOA ns1.example.net. hostmaster.${ZONE}. 1 3600 600 604800 60`,
    '@ 3600 IN NS ns1.example.net.',
    '@ 3600 IN NS ns2.example.net.',
  ];
  for (const r of rrsets) for (const v of r.records) zoneLines.push(`${r.subname} 300 IN A ${v}`);
  const nsdConf = (root: string, port: number, zoneBlock: string[]) => {
    mkdirSync(root, { recursive: true });
    const conf = join(root, 'nsd.conf');
    writeFileSync(
      conf,
      [
        ...nsdServerConfig(root, port, ['  server-count: 1']),
        'key:',
        `  name: "${KEY.name}"`,
        `  algorithm: ${KEY.algorithm}`,
        `  secret: "${KEY.secret.toString('base64')}"`,
        'zone:',
        `  name: ${ZONE}`,
        ...zoneBlock,
        '',
      ].join('\n'),
    );
    return conf;
  };
  mkdirSync(nsdDir, { recursive: true });
  writeFileSync(join(nsdDir, `${ZONE}.zone`), zoneLines.join('\n') + '\n');
  const nsdPrimary = startProcess(
    'nsd',
    ['-d', '-c', nsdConf(nsdDir, nsdPrimaryPort, [`  zonefile: "${ZONE}.zone"`, '  provide-xfr: 127.0.0.1 NOKEY'])],
    'nsd-primary',
  );
  const nsdSecondary = startProcess(
    'nsd',
    [
      '-d',
      '-c',
      nsdConf(join(dir, 'nsd-secondary'), nsdSecondaryPort, [
        `  zonefile: "${ZONE}.zone"`,
        `  allow-notify: 127.0.0.1 ${KEY.name}`,
        `  request-xfr: 127.0.0.1@${dnsPort} ${KEY.name}`,
      ]),
    ],
    'nsd-secondary',
  );
  await new Promise((r) => setTimeout(r, 3000));

  // 1. AXFR of 100k records.
  const axfr = async (port: number, signed: boolean) => {
    const runs: number[] = [];
    let records = 0;
    for (let i = 0; i < 5; i++) {
      const r = await transfer(port, 'AXFR', signed);
      runs.push(r.ms);
      records = r.records;
    }
    return { records, medianMs: pct(runs, 0.5) };
  };
  const rssBefore = rssMiB(service.pid!);
  let rssPeak = rssBefore;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssMiB(service.pid!))), 10);
  const ours = await axfr(dnsPort, true);
  clearInterval(sampler);
  const theirs = await axfr(nsdPrimaryPort, false);
  console.log(
    `AXFR ${ours.records} records: service ${ours.medianMs.toFixed(0)} ms (median of 5, RSS ` +
      `${rssBefore.toFixed(0)} → peak ${rssPeak.toFixed(0)} MiB), NSD ${theirs.medianMs.toFixed(0)} ms: ratio ` +
      `${(ours.medianMs / theirs.medianMs).toFixed(2)} (target ≤ 1.5)`,
  );

  // 2. IXFR after 1,000 changes.
  const soa = dnsPacket.decode(
    await new Promise<Buffer>((resolve) => {
      const s = dgram.createSocket('udp4');
      s.on('message', (m) => (s.close(), resolve(m)));
      s.send(
        dnsPacket.encode({ type: 'query', id: 3, questions: [{ name: ZONE, type: 'SOA' }] }),
        dnsPort,
        '127.0.0.1',
      );
    }),
  );
  const fromSerial = ((soa.answers![0] as { data?: unknown }).data as { serial: number }).serial;
  for (let i = 0; i < 1000; i++)
    await api(
      base,
      'PUT',
      `/zones/${ZONE}/records`,
      { records: [{ subname: `c${i}`, type: 'A', ttl: 300, records: [ip(i, 0)] }] },
      token,
    );
  const ixfr = await transfer(dnsPort, 'IXFR', true, fromSerial);
  console.log(
    `IXFR after 1,000 changes: ${ixfr.records} records in ${ixfr.ms.toFixed(0)} ms (${ixfr.incremental ? 'incremental' : 'full zone'})`,
  );

  // 3. NOTIFY to served on the NSD secondary.
  const latencies: number[] = [];
  for (let i = 0; i < 50; i++) {
    const value = `192.0.2.${(i % 250) + 1}`;
    const t0 = performance.now();
    await api(
      base,
      'PUT',
      `/zones/${ZONE}/records`,
      { records: [{ subname: 'probe', type: 'A', ttl: 300, records: [value] }] },
      token,
    );
    while (!(await udpQuery(nsdSecondaryPort, `probe.${ZONE}`)).includes(value)) {
      if (performance.now() - t0 > 10_000) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    latencies.push(performance.now() - t0);
  }
  // NSD applies a transfer after its xfrd-reload-timeout (1 s by default): most of this is NSD's.
  console.log(
    `change → served by the NSD secondary (NOTIFY + IXFR, NSD's default 1 s reload timeout included): p50 ` +
      `${pct(latencies, 0.5).toFixed(0)} ms, p99 ${pct(latencies, 0.99).toFixed(0)} ms (target p99 ≤ 2000)`,
  );

  // 4. Query qps without and during 10 concurrent AXFR loops.
  const queries = join(dir, 'queries.txt');
  writeFileSync(queries, Array.from({ length: 10_000 }, (_, i) => `h${i % RRSETS}.${ZONE} A`).join('\n') + '\n');
  const during = async (port: number, signed: boolean) => {
    let stop = false;
    const loops = Array.from({ length: 10 }, async () => {
      while (!stop) await transfer(port, 'AXFR', signed).catch(() => undefined);
    });
    const result = await maxThroughput(port, queries, 5);
    stop = true;
    await Promise.all(loops);
    return result.qps;
  };
  for (const [label, port, signed] of [
    ['service', dnsPort, true],
    ['NSD', nsdPrimaryPort, false],
  ] as const) {
    const idle = (await maxThroughput(port, queries, 5)).qps;
    const busy = await during(port, signed);
    console.log(
      `${label}: ${idle.toFixed(0)} qps without transfers, ${busy.toFixed(0)} qps during 10 concurrent AXFRs: ` +
        `ratio ${(busy / idle).toFixed(2)} (target ≥ 0.8)`,
    );
  }

  await stopProcess(nsdSecondary);
  await stopProcess(nsdPrimary);
  await stopProcess(service);
}

main().then(
  () => process.exit(0),
  (e: Error) => {
    console.error(e);
    process.exit(1);
  },
);
