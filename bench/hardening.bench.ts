/**
 * Hardening load check (issue 24), against the service run as `npm start` runs it (all
 * roles, embedded stores, loopback only). Not a test: it prints what it sees.
 *
 * (a) 100 concurrent wrong logins for one user: how many were answered 401 and 429.
 * (b) 600 connections trickling one byte every 2 s to the DNS port over TCP, from 10
 *     loopback addresses (127.0.0.2–11, 60 each; a connection the server closes is opened
 *     again), while `dig +tcp` is run every 0.5 s: its answer times (max, p99) and failures.
 * (c) Four 200 MB messages sent to the SMTP intake at once: the service's RSS before, at
 *     its peak and after, its V8 external memory (Buffers) likewise, and the answers (552
 *     expected: far over the size limit).
 *
 * Run: npm run build && node dist/bench/hardening.bench.js   (npm run bench:hardening)
 *   env: HARDENING_TRICKLE_SECONDS (20), HARDENING_MESSAGE_MB (200),
 *        HARDENING_PARTS (a,b,c: which parts to run, e.g. `c` for the SMTP part alone),
 *        HARDENING_NODE_FLAGS (extra node flags for the service, e.g. `--trace-gc`; its stdout is then shown)
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, stopAllOnExit, stopProcess } from './dns/processes';
import { deployedSpawn, localServiceEnv } from './support/start-command';

interface MemoryUsage {
  rss: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
}

const ADMIN = 'bench-admin-token-0123456789';
const TRICKLE_SECONDS = Number(process.env.HARDENING_TRICKLE_SECONDS ?? 20);
const MESSAGE_MB = Number(process.env.HARDENING_MESSAGE_MB ?? 200);
const TRICKLE_ADDRESSES = 10;
const TRICKLE_PER_ADDRESS = 60;
const NODE_FLAGS = (process.env.HARDENING_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);
const PARTS = new Set((process.env.HARDENING_PARTS ?? 'a,b,c').split(',').map((p) => p.trim()));

async function http(
  port: number,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any }> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: parsed };
}

/** Resident set size of a process, MB (all its threads: the DNS and query-log threads too). */
const rssMb = (pid: number): number =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

/** The service's own memoryUsage(), as its memory probe last wrote it (bench/support/memory-probe.ts). */
function serviceMemory(probeFile: string): MemoryUsage | null {
  try {
    return JSON.parse(readFileSync(probeFile, 'utf8')) as MemoryUsage;
  } catch {
    return null;
  }
}

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function wrongLogins(port: number): Promise<void> {
  const username = 'lockout-bench';
  const reg = await http(port, 'POST', '/auth/register', {
    username,
    email: 'lockout-bench@example.com',
    password: 'a-long-enough-password',
  });
  if (reg.status !== 201) throw new Error(`register: ${reg.status} ${JSON.stringify(reg.body)}`);
  const statuses = await Promise.all(
    Array.from({ length: 100 }, (_, i) =>
      http(port, 'POST', '/auth/login', { username, password: `wrong-password-${i}` }).then((r) => r.status),
    ),
  );
  const counts = new Map<number, number>();
  for (const s of statuses) counts.set(s, (counts.get(s) ?? 0) + 1);
  console.log(
    `(a) 100 concurrent wrong logins for one user: 401 × ${counts.get(401) ?? 0}, 429 × ${counts.get(429) ?? 0}` +
      [...counts]
        .filter(([s]) => s !== 401 && s !== 429)
        .map(([s, n]) => `, ${s} × ${n}`)
        .join(''),
  );
}

/** A connection that sends one byte every 2 s and never completes a message; reopened when the server closes it. */
function trickler(
  dnsPort: number,
  localAddress: string,
  stopAt: number,
  stats: { closedByServer: number; opened: number },
): Promise<void> {
  return new Promise((resolve) => {
    const open = () => {
      if (Date.now() >= stopAt) return resolve();
      stats.opened++;
      const socket = net.connect({ port: dnsPort, host: '127.0.0.1', localAddress });
      let timer: NodeJS.Timeout | null = null;
      socket.on('connect', () => {
        socket.write(Buffer.from([0x01]));
        timer = setInterval(() => socket.write(Buffer.from([0])), 2000);
      });
      socket.on('error', () => undefined);
      socket.on('close', () => {
        if (timer) clearInterval(timer);
        if (Date.now() >= stopAt) return resolve();
        stats.closedByServer++;
        setTimeout(open, 100);
      });
      setTimeout(() => socket.destroy(), Math.max(0, stopAt - Date.now()));
    };
    open();
  });
}

function digTcp(dnsPort: number): Promise<{ ms: number; ok: boolean; status: string }> {
  const started = performance.now();
  return new Promise((resolve) => {
    execFile(
      'dig',
      ['@127.0.0.1', '-p', String(dnsPort), '+tcp', '+time=2', '+tries=1', 'dyn.example.net', 'SOA'],
      { timeout: 10_000 },
      (err, stdout) => {
        const status = /status: ([A-Z]+)/.exec(stdout ?? '')?.[1] ?? 'none';
        resolve({ ms: performance.now() - started, ok: !err && status !== 'none', status });
      },
    );
  });
}

async function tricklingTcp(dnsPort: number): Promise<void> {
  const stopAt = Date.now() + TRICKLE_SECONDS * 1000;
  const stats = { closedByServer: 0, opened: 0 };
  const tricklers: Promise<void>[] = [];
  for (let a = 0; a < TRICKLE_ADDRESSES; a++)
    for (let i = 0; i < TRICKLE_PER_ADDRESS; i++) tricklers.push(trickler(dnsPort, `127.0.0.${2 + a}`, stopAt, stats));
  await sleep(1000); // every trickler connected and holding its place
  const samples: Array<{ ms: number; ok: boolean; status: string }> = [];
  const inFlight: Promise<void>[] = [];
  while (Date.now() < stopAt - 2500) {
    inFlight.push(digTcp(dnsPort).then((s) => void samples.push(s)));
    await sleep(500);
  }
  await Promise.all([...inFlight, ...tricklers]);
  const times = samples
    .filter((s) => s.ok)
    .map((s) => s.ms)
    .sort((a, b) => a - b);
  const failures = samples.filter((s) => !s.ok).length;
  console.log(
    `(b) ${TRICKLE_ADDRESSES * TRICKLE_PER_ADDRESS} trickling TCP connections from ${TRICKLE_ADDRESSES} addresses for ${TRICKLE_SECONDS} s ` +
      `(${stats.opened} opened, ${stats.closedByServer} closed by the server): dig +tcp every 0.5 s, ${samples.length} samples, ` +
      `${failures} failed, answer time (dig's whole run) max ` +
      `${times.length ? times[times.length - 1].toFixed(0) : '-'} ms, p99 ` +
      `${times.length ? pct(times, 99).toFixed(0) : '-'} ms, p50 ` +
      `${times.length ? pct(times, 50).toFixed(0) : '-'} ms ` +
      `(status ${[...new Set(samples.map((s) => s.status))].join('/')})`,
  );
}

/** One SMTP session that sends a `megabytes` MB message as fast as the socket takes it; resolves with the answer to it. */
function bigMessage(smtpPort: number, to: string, megabytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(smtpPort, '127.0.0.1');
    socket.setEncoding('utf8');
    const script = ['EHLO bench.example', 'MAIL FROM:<bench@bench.example>', `RCPT TO:<${to}>`, 'DATA'];
    let step = -1;
    let buffered = '';
    // 64 KiB of 76-character base64-looking lines: what a big attachment looks like on the wire.
    const line = 'QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9wcXJzdHV2d3h5ejAxMjM0\r\n';
    const block = Buffer.from(line.repeat(Math.floor(65536 / line.length)));
    const total = megabytes * 1024 * 1024;
    const sendBody = async () => {
      socket.write('From: bench@bench.example\r\nTo: ' + to + '\r\nSubject: big\r\n\r\n');
      for (let sent = 0; sent < total; sent += block.length) {
        if (!socket.write(block)) await new Promise((r) => socket.once('drain', r));
        if (socket.destroyed) return;
      }
      socket.write('\r\n.\r\n');
    };
    socket.on('data', (d: string) => {
      buffered += d;
      let nl: number;
      while ((nl = buffered.indexOf('\r\n')) >= 0) {
        const reply = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 2);
        if (/^\d{3}-/.test(reply)) continue;
        step++;
        if (step < script.length) {
          if (step > 0 && !/^[23]/.test(reply)) return finish(`refused before DATA: ${reply}`);
          socket.write(script[step] + '\r\n');
        } else if (step === script.length) {
          if (!reply.startsWith('354')) return finish(`DATA: ${reply}`);
          void sendBody();
        } else return finish(reply);
      }
    });
    const finish = (reply: string) => {
      socket.end('QUIT\r\n');
      resolve(reply);
    };
    socket.on('error', reject);
    socket.on('close', () => resolve('(closed)'));
  });
}

async function bigMessages(smtpPort: number, pid: number, probeFile: string): Promise<void> {
  await sleep(2000);
  const before = rssMb(pid);
  const memBefore = serviceMemory(probeFile);
  let peak = before;
  let peakExternal = memBefore?.external ?? 0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMb(pid));
    peakExternal = Math.max(peakExternal, serviceMemory(probeFile)?.external ?? 0);
  }, 50);
  const started = performance.now();
  const replies = await Promise.all(
    Array.from({ length: 4 }, () => bigMessage(smtpPort, 'dmarc-rua@example.com', MESSAGE_MB)),
  );
  const seconds = (performance.now() - started) / 1000;
  await sleep(3000);
  clearInterval(sampler);
  const after = rssMb(pid);
  const memAfter = serviceMemory(probeFile);
  peak = Math.max(peak, after);
  console.log(
    `(c) 4 × ${MESSAGE_MB} MB SMTP messages at once (${seconds.toFixed(1)} s): service RSS before ` +
      `${before.toFixed(0)} MB, peak ${peak.toFixed(0)} MB (+${(peak - before).toFixed(0)}), ` +
      `after ${after.toFixed(0)} MB (+${(after - before).toFixed(0)}); answers: ${[...new Set(replies.map((r) => r.slice(0, 40)))].join(' | ')}`,
  );
  if (memBefore && memAfter)
    console.log(
      `    external (Buffers) before ${mb(memBefore.external)} MB, peak ${mb(peakExternal)} MB, after ${mb(memAfter.external)} MB; ` +
        `JS heap used before ${mb(memBefore.heapUsed)} MB, after ${mb(memAfter.heapUsed)} MB`,
    );
}

async function main(): Promise<void> {
  stopAllOnExit();
  const dataDir = mkdtempSync(join(tmpdir(), 'hardening-bench-'));
  const [port, dnsPort, smtpPort] = [await freePort(), await freePort(), await freePort()];
  const probeFile = join(dataDir, 'memory-probe.json');
  const deployed = deployedSpawn(
    join(__dirname, '..', 'apps', 'server', 'main.js'),
    {
      ...localServiceEnv(dataDir, port, dnsPort, smtpPort),
      ADMIN_TOKEN: ADMIN,
      LOG_REQUESTS: 'false',
      MEMORY_PROBE_FILE: probeFile,
    },
    ['--require', join(__dirname, 'support', 'memory-probe.js'), ...NODE_FLAGS],
  );
  const child = spawn(process.execPath, deployed.args, {
    env: deployed.env,
    stdio: ['ignore', NODE_FLAGS.length ? 'inherit' : 'ignore', 'inherit'],
  });
  try {
    for (let i = 0; ; i++) {
      if ((await http(port, 'GET', '/health').catch(() => ({ status: 0 }))).status === 200) break;
      if (i > 300) throw new Error('server did not start');
      await sleep(100);
    }
    const owner = await http(port, 'POST', '/auth/register', {
      username: 'bench',
      email: 'bench@example.com',
      password: 'a-long-enough-password',
    });
    const enrolled = await http(
      port,
      'PUT',
      `/admin/accounts/${owner.body.id}/subscription`,
      { email_auth: { tier: 'enterprise', domains: ['example.com'] } },
      { 'x-admin-token': ADMIN },
    );
    if (enrolled.status !== 200) throw new Error(`enrol: ${enrolled.status} ${JSON.stringify(enrolled.body)}`);
    console.log(`hardening bench: service pid ${child.pid}, HTTP ${port}, DNS ${dnsPort}, SMTP ${smtpPort}`);

    if (PARTS.has('a')) await wrongLogins(port);
    if (PARTS.has('b')) await tricklingTcp(dnsPort);
    if (PARTS.has('c')) await bigMessages(smtpPort, child.pid!, probeFile);
  } finally {
    await stopProcess(child);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
