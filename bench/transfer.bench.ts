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
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as net from 'node:net';
import * as dgram from 'node:dgram';
import { cpus, loadavg, tmpdir } from 'node:os';
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
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      while (pending.length >= 2 && pending.length >= 2 + pending.readUInt16BE(0)) {
        const msg = pending.subarray(2, 2 + pending.readUInt16BE(0));
        pending = pending.subarray(2 + msg.length);
        const ancount = msg.readUInt16BE(6);
        records += ancount;
        if ((msg[3] & 0x0f) !== 0) return reject(new Error(`${type}: rcode ${msg[3] & 0x0f}`));
        for (const { index, serial: s } of soaSerials(msg)) {
          if (current === null) current = s;
          if (s === current) seenCurrent++;
          if (records - ancount + index === 1) incremental = true;
        }
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

/** Where a (possibly compressed) name at `at` ends. */
function skipName(msg: Buffer, at: number): number {
  for (;;) {
    const len = msg[at];
    if (len === 0) return at + 1;
    if ((len & 0xc0) === 0xc0) return at + 2;
    at += len + 1;
  }
}

/**
 * The SOA records of a message's answer section: their place and serial. Walked in place
 * rather than decoded (dns-packet builds an object per record): the client's cost should not
 * weigh on the times measured, the servers' and the loops' share of the 2 cores alike.
 */
function soaSerials(msg: Buffer): Array<{ index: number; serial: number }> {
  let at = 12;
  for (let i = msg.readUInt16BE(4); i > 0; i--) at = skipName(msg, at) + 4;
  const found: Array<{ index: number; serial: number }> = [];
  const count = msg.readUInt16BE(6);
  for (let index = 0; index < count; index++) {
    at = skipName(msg, at);
    const type = msg.readUInt16BE(at);
    const data = at + 10;
    if (type === 6) found.push({ index, serial: msg.readUInt32BE(skipName(msg, skipName(msg, data))) });
    at = data + msg.readUInt16BE(at + 8);
  }
  return found;
}

/** CPU seconds (user + system) of a process and every process under it (NSD's servers are grandchildren); Linux /proc. */
function cpuSeconds(pid: number): number {
  const procs = new Map<number, { ppid: number; ticks: number }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      procs.set(Number(entry), { ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) });
    } catch {
      /* gone meanwhile */
    }
  }
  const under = (p: number): boolean => p === pid || (p > 1 && procs.has(p) && under(procs.get(p)!.ppid));
  let ticks = 0;
  for (const [p, { ticks: t }] of procs) if (under(p)) ticks += t;
  return ticks / 100; // USER_HZ
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
  // 100,000 A records, the Elite plan's limit: the last RRset has one fewer, for the `probe` name of step 3.
  const rrsets = Array.from({ length: RRSETS }, (_, i) => ({
    subname: `h${i}`,
    type: 'A',
    ttl: 300,
    records: Array.from({ length: i === RRSETS - 1 ? PER_RRSET - 1 : PER_RRSET }, (_, j) => ip(i, j)),
  }));
  rrsets.push({ subname: 'probe', type: 'A', ttl: 300, records: ['192.0.2.254'] });
  for (let at = 0; at < rrsets.length; at += 200)
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
    [
      '-d',
      '-c',
      nsdConf(nsdDir, nsdPrimaryPort, [
        `  zonefile: "${ZONE}.zone"`,
        '  provide-xfr: 127.0.0.1 NOKEY',
        `  provide-xfr: 127.0.0.1 ${KEY.name}`,
      ]),
    ],
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
  console.log(
    `load average at start: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} (${cpus().length} cores)`,
  );
  const rssBefore = rssMiB(service.pid!);
  let rssPeak = rssBefore;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssMiB(service.pid!))), 10);
  // Both signed with the same key (the service takes only signed transfers; a secondary of NSD would sign too), NSD
  // unsigned as well for reference. The first AXFR of a zone version builds its wire form (kept for the next ones).
  const oursFirst = await transfer(dnsPort, 'AXFR', true);
  const theirsFirst = await transfer(nsdPrimaryPort, 'AXFR', true);
  // Alternated, so that a burst of load from elsewhere on the machine falls on all alike.
  const runs = { ours: [] as number[], theirs: [] as number[], theirsUnsigned: [] as number[] };
  let records = 0;
  for (let i = 0; i < 9; i++) {
    const ours = await transfer(dnsPort, 'AXFR', true);
    records = ours.records;
    runs.ours.push(ours.ms);
    runs.theirs.push((await transfer(nsdPrimaryPort, 'AXFR', true)).ms);
    runs.theirsUnsigned.push((await transfer(nsdPrimaryPort, 'AXFR', false)).ms);
  }
  clearInterval(sampler);
  // CPU per AXFR, which load from elsewhere on the machine does not change (wall times above, it does).
  const cpuPerAxfr = async (pid: number, port: number) => {
    const before = cpuSeconds(pid);
    for (let i = 0; i < 40; i++) await transfer(port, 'AXFR', true);
    return ((cpuSeconds(pid) - before) / 40) * 1000;
  };
  const oursCpu = await cpuPerAxfr(service.pid!, dnsPort);
  const theirsCpu = await cpuPerAxfr(nsdPrimary.pid!, nsdPrimaryPort);
  const [oursMs, theirsMs, unsignedMs] = [runs.ours, runs.theirs, runs.theirsUnsigned].map((r) => pct(r, 0.5));
  console.log(
    `AXFR ${records} records, TSIG-signed: service ${oursMs.toFixed(1)} ms (median of 9; first ${oursFirst.ms.toFixed(0)} ms, RSS ${rssBefore.toFixed(0)} → peak ${rssPeak.toFixed(0)} MiB), NSD ${theirsMs.toFixed(1)} ms (first ${theirsFirst.ms.toFixed(0)} ms): ratio ${(oursMs / theirsMs).toFixed(2)} (target ≤ 1.5)`,
  );
  console.log(
    `  NSD unsigned: ${unsignedMs.toFixed(1)} ms (service signed / NSD unsigned: ${(oursMs / unsignedMs).toFixed(2)}); CPU per signed AXFR (40 in a row, whole process trees): service ${oursCpu.toFixed(1)} ms, NSD ${theirsCpu.toFixed(1)} ms`,
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
  // Each change replaces one record of an RRset (the zone is at the Elite plan's 100,000 records: none can be added).
  for (let i = 0; i < 1000; i++)
    await api(
      base,
      'PUT',
      `/zones/${ZONE}/records`,
      { records: [{ ...rrsets[i], records: [`192.0.2.${(i % 250) + 1}`, ...rrsets[i].records.slice(1)] }] },
      token,
    );
  const ixfr = await transfer(dnsPort, 'IXFR', true, fromSerial);
  console.log(
    `IXFR after 1,000 changes (one record replaced each): ${ixfr.records} records in ${ixfr.ms.toFixed(0)} ms (${ixfr.incremental ? 'incremental' : 'full zone'})`,
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
    let transfers = 0;
    const loops = Array.from({ length: 10 }, async () => {
      while (!stop)
        await transfer(port, 'AXFR', signed).then(
          () => transfers++,
          () => undefined,
        );
    });
    const result = await maxThroughput(port, queries, 5);
    stop = true;
    await Promise.all(loops);
    return { qps: result.qps, transfersPerSecond: transfers / 5 };
  };
  // Two rounds, the servers alternating, so that load from elsewhere on the machine falls on both.
  const totals = new Map<string, { idle: number; busy: number }>();
  for (let round = 1; round <= 2; round++) {
    for (const [label, port, signed] of [
      ['service', dnsPort, true],
      ['NSD', nsdPrimaryPort, true],
    ] as const) {
      const idle = (await maxThroughput(port, queries, 5)).qps;
      const busy = await during(port, signed);
      const total = totals.get(label) ?? { idle: 0, busy: 0 };
      totals.set(label, { idle: total.idle + idle, busy: total.busy + busy.qps });
      console.log(
        `round ${round}, ${label}: ${idle.toFixed(0)} qps without transfers, ${busy.qps.toFixed(0)} qps during 10 concurrent AXFR loops (${busy.transfersPerSecond.toFixed(1)} AXFRs/s completed): ratio ${(busy.qps / idle).toFixed(2)}`,
      );
    }
  }
  for (const [label, { idle, busy }] of totals)
    console.log(`${label}: qps during transfers / without, both rounds: ${(busy / idle).toFixed(2)} (target ≥ 0.8)`);
  console.log(
    `load average at end: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );

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
