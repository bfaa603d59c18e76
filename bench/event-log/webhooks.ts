/**
 * Webhook delivery benchmark (issue 26): the compiled service as its own process, run as
 * `npm start` runs it (all roles, embedded stores), delivering to a real receiver on
 * loopback (bench/support/webhook-receiver.ts; signatures not checked here, to measure the
 * service). Two figures:
 * - throughput: WEBHOOK_BENCH_ACCOUNTS Elite accounts, each with 20 endpoints (the plan's
 *   limit) subscribed to `ddns.host.address_changed`; WEBHOOK_BENCH_UPDATES address changes
 *   through the API as fast as WEBHOOK_BENCH_CONCURRENCY clients go, each fanned out to the
 *   account's 20 endpoints; deliveries/s from the first change to the last delivery
 *   (target ≥ 1,000/s);
 * - latency at a steady 100 events/s (WEBHOOK_BENCH_LATENCY_SECONDS), the time from the
 *   event's `occurred_at` (the append) to the receiver having the request, p50/p99 (target
 *   p99 ≤ 1 s): the events spread over WEBHOOK_BENCH_LATENCY_ENDPOINTS endpoints (10/s each),
 *   then all to one endpoint (its deliveries go one at a time, in order).
 * A warm-up batch goes first and is not counted.
 *
 * Run: npm run build && node dist/bench/event-log/webhooks.js
 *   env: WEBHOOK_BENCH_ACCOUNTS (10), WEBHOOK_BENCH_UPDATES (1000), WEBHOOK_BENCH_CONCURRENCY (16),
 *        WEBHOOK_BENCH_LATENCY_SECONDS (10), WEBHOOK_BENCH_LATENCY_ENDPOINTS (10)
 */
import { BenchService, eliteAccount, percentile, startBenchService } from '../support/bench-service';
import { Received, WebhookReceiver } from '../support/webhook-receiver';

const ACCOUNTS = Number(process.env.WEBHOOK_BENCH_ACCOUNTS ?? 10);
const UPDATES = Number(process.env.WEBHOOK_BENCH_UPDATES ?? 1000);
const CONCURRENCY = Number(process.env.WEBHOOK_BENCH_CONCURRENCY ?? 16);
const LATENCY_SECONDS = Number(process.env.WEBHOOK_BENCH_LATENCY_SECONDS ?? 10);
/** The latency run's events go round robin to this many endpoints (one account each), then all to one. */
const LATENCY_ENDPOINTS = Number(process.env.WEBHOOK_BENCH_LATENCY_ENDPOINTS ?? 10);
const ENDPOINTS_PER_ACCOUNT = 20;
/** A host takes 10 changes per 10 minutes (ddns.md throttle): each host changes at most this often in the run. */
const CHANGES_PER_HOST = 5;
const LATENCY_RATE = 100;
const ZONE = 'bench.example.net';

interface Account {
  token: string;
  hosts: string[];
}

async function pool<T>(items: T[], width: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await task(items[next++]);
    }),
  );
}

class Service {
  private constructor(private readonly process: BenchService) {}

  static async start(): Promise<Service> {
    return new Service(await startBenchService('webhook', { DDNS_ZONES: ZONE }));
  }

  async call(method: string, path: string, body?: unknown, token?: string): Promise<{ status: number; body: any }> {
    const res = await fetch(this.process.base + path, {
      method,
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  }

  async account(name: string, hosts: number): Promise<Account> {
    const { token } = await eliteAccount(this.process.base, name);
    const names = Array.from({ length: hosts }, (_, i) => `${name}-h${i}.${ZONE}`);
    await pool(names, 8, async (fqdn) => {
      const res = await this.call('POST', '/api/domains', { fqdn, record_type: 'A', record_ip: '192.0.2.1' }, token);
      if (res.status !== 201) throw new Error(`create ${fqdn}: ${res.status} ${JSON.stringify(res.body)}`);
    });
    return { token, hosts: names };
  }

  async endpoint(token: string, url: string): Promise<void> {
    const res = await this.call('POST', '/webhooks', { url, event_types: ['ddns.host.address_changed'] }, token);
    if (res.status !== 201) throw new Error(`webhook: ${res.status} ${JSON.stringify(res.body)}`);
  }

  stop(): Promise<void> {
    return this.process.stop();
  }
}

/** The changes of one run: each host's next address, round robin over hosts so no host meets the throttle. */
class Changes {
  private round = 0;
  private next = 0;
  constructor(private readonly hosts: { token: string; fqdn: string }[]) {}
  take(n: number): { token: string; fqdn: string; ip: string }[] {
    return Array.from({ length: n }, () => {
      const host = this.hosts[this.next++];
      if (this.next === this.hosts.length) {
        this.next = 0;
        this.round += 1;
        if (this.round >= CHANGES_PER_HOST)
          throw new Error(
            'webhook bench: not enough hosts for the changes asked (raise the accounts or lower the updates)',
          );
      }
      return { ...host, ip: `10.${this.round}.${Math.floor(this.next / 250)}.${(this.next % 250) + 1}` };
    });
  }
}

async function throughput(
  service: Service,
  receiver: WebhookReceiver,
  changes: Changes,
  updates: number,
  label: string,
): Promise<number> {
  const before = receiver.received.length;
  const expected = updates * ENDPOINTS_PER_ACCOUNT;
  const started = performance.now();
  await pool(changes.take(updates), CONCURRENCY, async (c) => {
    const res = await service.call('PUT', `/api/domains/fqdn/${c.fqdn}`, { record_ip: c.ip }, c.token);
    if (res.status !== 200) throw new Error(`update ${c.fqdn}: ${res.status} ${JSON.stringify(res.body)}`);
  });
  const sent = performance.now();
  await receiver.until(() => receiver.received.length - before >= expected, 600_000, `${expected} deliveries`);
  const seconds = (performance.now() - started) / 1000;
  const rate = expected / seconds;
  console.log(
    `${label}: ${updates} changes × ${ENDPOINTS_PER_ACCOUNT} endpoints = ${expected} deliveries in ${seconds.toFixed(2)} s ` +
      `(changes sent in ${((sent - started) / 1000).toFixed(2)} s): ${rate.toFixed(0)} deliveries/s`,
  );
  return rate;
}

/** `LATENCY_RATE` changes a second for LATENCY_SECONDS, round robin over `accounts` (one endpoint each, path `<prefix><n>`). */
async function latency(
  service: Service,
  receiver: WebhookReceiver,
  accounts: Account[],
  prefix: string,
): Promise<{ p50: number; p99: number; count: number }> {
  const latencies: number[] = [];
  receiver.onDelivery = (r: Received) => {
    if (r.path.startsWith(prefix)) latencies.push(r.at - Date.parse(r.body.occurred_at));
  };
  const hosts = Array.from({ length: accounts[0].hosts.length }, (_, h) =>
    accounts.map((a) => ({ token: a.token, fqdn: a.hosts[h] })),
  ).flat();
  const changes = new Changes(hosts).take(LATENCY_RATE * LATENCY_SECONDS);
  const started = Date.now();
  const inFlight: Promise<unknown>[] = [];
  for (const [i, c] of changes.entries()) {
    // A steady rate: each change at its slot, whatever the previous answers took.
    const wait = started + (i * 1000) / LATENCY_RATE - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    inFlight.push(service.call('PUT', `/api/domains/fqdn/${c.fqdn}`, { record_ip: c.ip }, c.token));
  }
  await Promise.all(inFlight);
  await receiver.until(() => latencies.length >= changes.length, 180_000, 'every latency delivery');
  receiver.onDelivery = null;
  const sorted = latencies.sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), count: sorted.length };
}

/** Accounts of one endpoint each, with enough hosts for the latency run's changes between them. */
async function latencyAccounts(
  service: Service,
  receiver: WebhookReceiver,
  count: number,
  name: string,
): Promise<Account[]> {
  const hosts = Math.ceil((LATENCY_RATE * LATENCY_SECONDS) / count / (CHANGES_PER_HOST - 1)) + 1;
  const accounts = await Promise.all(Array.from({ length: count }, (_, a) => service.account(`${name}${a}`, hosts)));
  for (const [a, account] of accounts.entries()) await service.endpoint(account.token, receiver.url(`/${name}/${a}`));
  return accounts;
}

export async function run(): Promise<void> {
  const receiver = new WebhookReceiver();
  receiver.verify = false;
  await receiver.start();
  const service = await Service.start();
  try {
    const hostsPerAccount = Math.ceil((UPDATES * 1.2) / ACCOUNTS / (CHANGES_PER_HOST - 1)) + 10;
    const accounts = await Promise.all(
      Array.from({ length: ACCOUNTS }, (_, a) => service.account(`whbench${a}`, hostsPerAccount)),
    );
    for (const [a, account] of accounts.entries()) {
      for (let e = 0; e < ENDPOINTS_PER_ACCOUNT; e++)
        await service.endpoint(account.token, receiver.url(`/a${a}/e${e}`));
    }
    // Interleaved over accounts, so every account's endpoints are busy at once.
    const hosts = Array.from({ length: hostsPerAccount }, (_, h) =>
      accounts.map((acc) => ({ token: acc.token, fqdn: acc.hosts[h] })),
    ).flat();
    const changes = new Changes(hosts);
    await throughput(service, receiver, changes, Math.max(50, Math.floor(UPDATES / 10)), 'warm-up');
    const rate = await throughput(service, receiver, changes, UPDATES, 'throughput');

    const spread = await latency(
      service,
      receiver,
      await latencyAccounts(service, receiver, LATENCY_ENDPOINTS, 'lat'),
      '/lat/',
    );
    console.log(
      `latency at ${LATENCY_RATE} events/s for ${LATENCY_SECONDS} s over ${LATENCY_ENDPOINTS} endpoints ` +
        `(${spread.count} deliveries, occurred_at → received): p50 ${spread.p50} ms, p99 ${spread.p99} ms`,
    );
    const single = await latency(service, receiver, await latencyAccounts(service, receiver, 1, 'one'), '/one/');
    console.log(
      `latency at ${LATENCY_RATE} events/s for ${LATENCY_SECONDS} s to one endpoint (${single.count} ` +
        `deliveries): p50 ${single.p50} ms, p99 ${single.p99} ms`,
    );
    console.log(
      `\nwebhooks: ${rate.toFixed(0)} deliveries/s (target ≥ 1,000); delivery latency p99 ${spread.p99} ms at ` +
        `${LATENCY_RATE}/s over ${LATENCY_ENDPOINTS} endpoints, ` +
        `${single.p99} ms to one endpoint (target ≤ 1,000 ms)`,
    );
  } finally {
    await service.stop();
    await receiver.stop();
  }
}

if (require.main === module) {
  run().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
