import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Worker } from 'node:worker_threads';
import { DnsService } from '../libs/dns-role/dns.module';
import { loadUdpBatch } from '../libs/dns-server/udp-batch';
import { answerData, queryDns, waitForDns } from './support/dns-client';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startServerProcess, type ServerProcess } from './support/server-process';
import { registerAndLogin, startTestApp, TestApp } from './support/test-app';

const run = promisify(execFile);

/**
 * DNS_THREADS: several DNS threads share one port through SO_REUSEPORT. Each query below
 * comes from a fresh socket (a new source port), so the kernel spreads them over the
 * threads; every one must answer, and every one must have followed the same writes.
 */
describe('DNS role in several threads on one port', () => {
  let app: TestApp;
  let dnsPort: number;
  let owner: Awaited<ReturnType<typeof registerAndLogin>>;

  beforeAll(async () => {
    dnsPort = await freePort();
    app = await startTestApp({ env: { DNS_PORT: String(dnsPort), DNS_THREADS: '3', DDNS_ZONES: 'dyn.example.net' } });
    owner = await registerAndLogin(app.http);
  });
  afterAll(() => app.close());

  const addressesSeen = async (name: string, queries: number): Promise<Set<string>> => {
    const seen = new Set<string>();
    for (let i = 0; i < queries; i++) seen.add(answerData(await queryDns(dnsPort, name, 'A'), 'A').join(',') || 'none');
    return seen;
  };

  it('starts the configured number of threads, the first also serving TCP', async () => {
    const dns = app.running.app.get(DnsService);
    expect(dns.mode).toBe('thread');
    expect(dns.replicas).toBe(3);
    const tcp = await run('dig', ['+tcp', '+short', '-p', String(dnsPort), '@127.0.0.1', 'dyn.example.net', 'SOA']);
    expect(tcp.stdout).toMatch(/dyn\.example\.net\./);
  });

  it('answers every query with the latest address, whichever thread takes it', async () => {
    const created = await app.http.post(
      '/api/domains',
      { fqdn: 'multi.dyn.example.net', record_type: 'A', record_ip: '192.0.2.21' },
      owner.token,
    );
    expect(created.status).toBe(201);
    // A thread that missed the commit would answer NXDOMAIN (none) to some of these.
    for (const started = Date.now(); Date.now() - started < 2000;) {
      if ((await addressesSeen('multi.dyn.example.net', 10)).size === 1) break;
    }
    expect(await addressesSeen('multi.dyn.example.net', 90)).toEqual(new Set(['192.0.2.21']));

    const put = await app.http.put('/api/domains/fqdn/multi.dyn.example.net', { record_ip: '192.0.2.22' }, owner.token);
    expect(put.status).toBe(200);
    for (const started = Date.now(); Date.now() - started < 2000;) {
      const seen = await addressesSeen('multi.dyn.example.net', 10);
      if (seen.size === 1 && seen.has('192.0.2.22')) break;
    }
    expect(await addressesSeen('multi.dyn.example.net', 90)).toEqual(new Set(['192.0.2.22']));
  });

  /** Ends one DNS thread as a crash would; resolves once the service has started it again and it answers. */
  const crash = async (thread: number) => {
    const runner = (app.running.app.get(DnsService) as unknown as { runners: Array<{ worker: Worker | null }> })
      .runners[thread];
    const old = runner.worker!;
    await old.terminate();
    return async () => {
      while (!runner.worker || runner.worker === old) await new Promise((resolve) => setTimeout(resolve, 5));
      const restarted = runner.worker;
      await new Promise<void>((resolve) =>
        restarted.on('message', (m: { type: string }) => m.type === 'ready' && resolve()),
      );
    };
  };
  const allAnswer = async (name: string, address: string) => {
    for (const started = Date.now(); Date.now() - started < 5000;) {
      const seen = await addressesSeen(name, 10);
      if (seen.size === 1 && seen.has(address)) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(await addressesSeen(name, 90)).toEqual(new Set([address]));
  };

  it('catches up a thread that only answers (it folds no events) after it died, with what changed meanwhile', async () => {
    const restarted = await crash(2);
    const put = await app.http.put('/api/domains/fqdn/multi.dyn.example.net', { record_ip: '192.0.2.23' }, owner.token);
    expect(put.status).toBe(200);
    await restarted();
    await allAnswer('multi.dyn.example.net', '192.0.2.23');
    const again = await app.http.put(
      '/api/domains/fqdn/multi.dyn.example.net',
      { record_ip: '192.0.2.26' },
      owner.token,
    );
    expect(again.status).toBe(200);
    await allAnswer('multi.dyn.example.net', '192.0.2.26');
  });

  it('keeps every thread answering the latest after the thread that folds the events died and came back', async () => {
    const restarted = await crash(0);
    const put = await app.http.put('/api/domains/fqdn/multi.dyn.example.net', { record_ip: '192.0.2.24' }, owner.token);
    expect(put.status).toBe(200);
    await restarted();
    await allAnswer('multi.dyn.example.net', '192.0.2.24');
    const created = await app.http.post(
      '/api/domains',
      { fqdn: 'after.dyn.example.net', record_type: 'A', record_ip: '192.0.2.25' },
      owner.token,
    );
    expect(created.status).toBe(201);
    await allAnswer('after.dyn.example.net', '192.0.2.25');
  });
});

/** The CPUs a task may run on, from /proc (Cpus_allowed_list: "0-1", "0,2-3"). */
function allowedCpus(pid: number, tid: number = pid): number[] {
  const status = readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8');
  const list = /^Cpus_allowed_list:\s*(\S+)$/m.exec(status)![1];
  return list.split(',').flatMap((part) => {
    const [from, to = from] = part.split('-').map(Number);
    return Array.from({ length: to - from + 1 }, (_, i) => from + i);
  });
}

/** Each DNS thread's (named `dns`, libs/shared/thread-name.ts) usable CPUs. */
function dnsThreadCpus(pid: number): number[][] {
  return readdirSync(`/proc/${pid}/task`)
    .map(Number)
    .filter((tid) => readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim() === 'dns')
    .map((tid) => allowedCpus(pid, tid))
    .sort((a, b) => a[0] - b[0]);
}

/**
 * CPU-local steering (decision 0115) with one DNS thread per usable CPU: each thread pinned to
 * the CPU whose queries the steering hands its socket. A restarted thread's socket joins the
 * group last, so from then on no thread is pinned, and every thread still answers.
 */
(process.platform === 'linux' ? describe : describe.skip)('DNS threads pinned to CPUs, and a restart', () => {
  let app: TestApp;
  let dnsPort: number;
  const cpus = () => allowedCpus(process.pid);

  beforeAll(async () => {
    dnsPort = await freePort();
    app = await startTestApp({ env: { DNS_PORT: String(dnsPort), DNS_THREADS: '2', DDNS_ZONES: 'dyn.example.net' } });
  });
  afterAll(() => app.close());

  /**
   * Steering hands a query to the thread of the CPU it was sent from: with this thread (the
   * test's, which sends the queries) pinned to each CPU in turn, the leader and then the
   * follower, which installs the leader's batches (decision 0112), answer. Each must serve an
   * update acknowledged over HTTP, and the one before it never again (decision 0120).
   */
  it('serves an acknowledged DDNS update from the thread that folds and from the one that follows', async () => {
    if (cpus().length !== 2) return;
    const batch = loadUdpBatch();
    if (!batch.ok) throw new Error(batch.reason);
    const all = cpus();
    const owner = await registerAndLogin(app.http, { plan: 'pro' });
    const created = await app.http.post(
      '/api/domains',
      { fqdn: 'steered.dyn.example.net', record_type: 'A', record_ip: '192.0.2.40' },
      owner.token,
    );
    expect(created.status).toBe(201);
    const key = await app.http.post('/api-keys', { name: 'ddns' }, owner.token);
    expect(key.status).toBe(201);
    const basic = `Basic ${Buffer.from(`${owner.username}:${key.body.key}`).toString('base64')}`;
    try {
      for (const [i, cpu] of all.entries()) {
        expect(batch.addon.pinThread([cpu])).toBe(0);
        const address = `192.0.2.${41 + i}`;
        const update = await app.http.get(
          `/domains/nic/update?hostname=steered.dyn.example.net&myip=${address}`,
          undefined,
          { authorization: basic },
        );
        expect(update.text).toBe(`good ${address}`);
        await waitForDns(dnsPort, 'steered.dyn.example.net', 'A', [address], 2000);
        const seen = new Set<string>();
        for (let q = 0; q < 20; q++)
          seen.add(answerData(await queryDns(dnsPort, 'steered.dyn.example.net', 'A'), 'A').join(','));
        expect(seen).toEqual(new Set([address]));
      }
    } finally {
      batch.addon.pinThread(all);
    }
  });

  it('pins each thread to its own CPU, and lets all go once one of them restarted', async () => {
    // Only where two CPUs are usable; elsewhere the threads run unpinned from the start (the other describe).
    if (cpus().length !== 2) return;
    expect(dnsThreadCpus(process.pid)).toEqual(cpus().map((cpu) => [cpu]));
    const runners = (app.running.app.get(DnsService) as unknown as { runners: Array<{ worker: Worker | null }> })
      .runners;
    const old = runners[0].worker!;
    await old.terminate();
    while (!runners[0].worker || runners[0].worker === old) await new Promise((resolve) => setTimeout(resolve, 5));
    const restarted = runners[0].worker;
    await new Promise<void>((resolve) =>
      restarted.on('message', (m: { type: string }) => m.type === 'ready' && resolve()),
    );
    // The survivor is told by message: give it a moment to take it.
    const unpinned = JSON.stringify([cpus(), cpus()]);
    for (const started = Date.now(); Date.now() - started < 2000;) {
      if (JSON.stringify(dnsThreadCpus(process.pid)) === unpinned) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(dnsThreadCpus(process.pid)).toEqual([cpus(), cpus()]);
    for (let i = 0; i < 40; i++) expect((await queryDns(dnsPort, 'dyn.example.net', 'SOA')).rcode).toBe('NOERROR');
  });
});

/** Roles apart: the `dns` role in its own process on the same DATA_DIR, with several threads sharing one fold. */
describe('a dns process of its own with several DNS threads', () => {
  const processes: ServerProcess[] = [];
  let dataDir: string;
  afterAll(async () => {
    for (const p of processes) await p.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves from every thread a host the API process writes, and its change', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'adns-dns-apart-'));
    const env = { SECRET_KEY: 'dns-threads-e2e-secret', DDNS_ZONES: 'dyn.example.net' };
    const api = await startServerProcess(dataDir, { ...env, ROLES: 'api,worker,intake' });
    processes.push(api);
    const dnsPort = await freePort();
    processes.push(
      await startServerProcess(dataDir, { ...env, ROLES: 'dns', DNS_THREADS: '2', DNS_PORT: String(dnsPort) }),
    );
    const user = await registerAndLogin(api.http);
    const created = await api.http.post(
      '/api/domains',
      { fqdn: 'apart.dyn.example.net', record_type: 'A', record_ip: '192.0.2.31' },
      user.token,
    );
    expect(created.status).toBe(201);
    // Another process's commits are seen by polling the store: within its poll interval.
    await waitForDns(dnsPort, 'apart.dyn.example.net', 'A', ['192.0.2.31'], 5000);
    const seen = new Set<string>();
    for (let i = 0; i < 40; i++)
      seen.add(answerData(await queryDns(dnsPort, 'apart.dyn.example.net', 'A'), 'A').join(','));
    expect(seen).toEqual(new Set(['192.0.2.31']));
    const put = await api.http.put('/api/domains/fqdn/apart.dyn.example.net', { record_ip: '192.0.2.32' }, user.token);
    expect(put.status).toBe(200);
    await waitForDns(dnsPort, 'apart.dyn.example.net', 'A', ['192.0.2.32'], 5000);
    seen.clear();
    for (let i = 0; i < 40; i++)
      seen.add(answerData(await queryDns(dnsPort, 'apart.dyn.example.net', 'A'), 'A').join(','));
    expect(seen).toEqual(new Set(['192.0.2.32']));
  });

  // CPU-local steering (decision 0115): with one DNS thread per usable CPU each thread runs on its own CPU;
  // otherwise (or DNS_CPU_AFFINITY=off) the threads run where the process may, and the log says why.
  const onLinux = process.platform === 'linux' ? it : it.skip;
  onLinux('pins each DNS thread to a CPU of its own when there is one thread per usable CPU', () => {
    const dns = processes[1];
    const cpus = allowedCpus(dns.child.pid!);
    if (cpus.length === 2) {
      expect(dnsThreadCpus(dns.child.pid!)).toEqual(cpus.map((cpu) => [cpu]));
    } else {
      expect(dnsThreadCpus(dns.child.pid!)).toEqual([cpus, cpus]);
      expect(dns.output()).toContain('dns cpu affinity off');
    }
  });

  onLinux('with DNS_CPU_AFFINITY=off leaves the threads unpinned, and every thread still answers', async () => {
    const dnsPort = await freePort();
    const env = { SECRET_KEY: 'dns-threads-e2e-secret', DDNS_ZONES: 'dyn.example.net', DNS_CPU_AFFINITY: 'off' };
    const dns = await startServerProcess(dataDir, {
      ...env,
      ROLES: 'dns',
      DNS_THREADS: '2',
      DNS_PORT: String(dnsPort),
    });
    processes.push(dns);
    await waitForDns(dnsPort, 'apart.dyn.example.net', 'A', ['192.0.2.32'], 5000);
    const seen = new Set<string>();
    for (let i = 0; i < 40; i++)
      seen.add(answerData(await queryDns(dnsPort, 'apart.dyn.example.net', 'A'), 'A').join(','));
    expect(seen).toEqual(new Set(['192.0.2.32']));
    const cpus = allowedCpus(dns.child.pid!);
    expect(dnsThreadCpus(dns.child.pid!)).toEqual([cpus, cpus]);
    expect(dns.output()).toContain('DNS_CPU_AFFINITY=off');
  });
});
