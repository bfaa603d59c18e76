import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Worker } from 'node:worker_threads';
import { DnsService } from '../libs/dns-role/dns.module';
import { answerData, queryDns } from './support/dns-client';
import { freePort } from './support/server-process';
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

  /** Ends one DNS thread as a crash would; the service starts it again (RESTART_DELAY_MS later). */
  const crash = async (thread: number) => {
    const runner = (app.running.app.get(DnsService) as unknown as { runners: Array<{ worker: Worker | null }> })
      .runners[thread];
    await runner.worker!.terminate();
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
    await crash(2);
    const put = await app.http.put('/api/domains/fqdn/multi.dyn.example.net', { record_ip: '192.0.2.23' }, owner.token);
    expect(put.status).toBe(200);
    await allAnswer('multi.dyn.example.net', '192.0.2.23');
  });

  it('keeps every thread answering the latest after the thread that folds the events died and came back', async () => {
    await crash(0);
    const put = await app.http.put('/api/domains/fqdn/multi.dyn.example.net', { record_ip: '192.0.2.24' }, owner.token);
    expect(put.status).toBe(200);
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
