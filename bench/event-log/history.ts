/**
 * History and time-travel benchmark (issue 26): reads of a zone with a long history,
 * through the public API of the service as `npm start` runs it (its own process, all roles,
 * embedded stores). A zone of ZONE_RRSETS RRsets is built, then changed EVENTS times by
 * record PUTs (one event each, CONCURRENCY in flight: concurrent writers of one stream
 * re-decide on a conflict, as clients would), and then, side by side in alternating rounds:
 *   - `GET /zones/{zone}?as_of=` at instants spread uniformly over the whole history
 *     (a snapshot plus a bounded fold: decision 0075) against `GET /zones/{zone}` (current state);
 *   - `GET /zones/{zone}/history` pages at cursors spread over the history against the
 *     first page;
 *   - `GET /zones/{zone}/resolve` at past instants against now.
 * Prints p50/p99 (ms) of each, and the build rate.
 *
 * Run: npm run build && node dist/bench/event-log/history.js
 *   env: HISTORY_BENCH_EVENTS (100000), HISTORY_BENCH_RRSETS (100), HISTORY_BENCH_CONCURRENCY (2),
 *        HISTORY_BENCH_READS (400 per kind and round), HISTORY_BENCH_ROUNDS (3)
 */
import { Dispatcher, Pool } from 'undici';
import { eliteAccount, percentile, startBenchService } from '../support/bench-service';

const EVENTS = Number(process.env.HISTORY_BENCH_EVENTS ?? 100_000);
const RRSETS = Number(process.env.HISTORY_BENCH_RRSETS ?? 100);
const CONCURRENCY = Number(process.env.HISTORY_BENCH_CONCURRENCY ?? 2);
const READS = Number(process.env.HISTORY_BENCH_READS ?? 400);
const ROUNDS = Number(process.env.HISTORY_BENCH_ROUNDS ?? 3);
const ZONE = 'history-bench.test';

interface Http {
  (method: string, path: string, body?: unknown): Promise<{ status: number; text: string }>;
  close(): Promise<void>;
}

function client(port: number, token: string | null): Http {
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections: Math.max(CONCURRENCY, 4), pipelining: 1 });
  const request = async (method: string, path: string, body?: unknown) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const res = await pool.request({
      method: method as Dispatcher.HttpMethod,
      path,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(payload ? { 'content-type': 'application/json' } : {}),
      },
      body: payload,
    });
    return { status: res.statusCode, text: await res.body.text() };
  };
  return Object.assign(request, { close: () => pool.close() });
}

const ms = (n: number) => n.toFixed(2).padStart(8);

async function timed(http: Http, paths: string[]): Promise<number[]> {
  const times: number[] = [];
  for (const path of paths) {
    const started = process.hrtime.bigint();
    const res = await http('GET', path);
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
    if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${res.text.slice(0, 200)}`);
  }
  return times;
}

export async function run(): Promise<void> {
  const service = await startBenchService('history');
  try {
    const { token } = await eliteAccount(service.base, 'historybench');
    const http = client(service.port, token);

    const zoneFile = Array.from({ length: RRSETS }, (_, i) => `h${i} 300 IN A 10.0.${i >> 8}.${i & 255}\n`).join('');
    const created = await http('POST', '/zones', { name: ZONE, zone_file: zoneFile });
    if (created.status !== 201) throw new Error(`import: ${created.status} ${created.text}`);

    // The history: EVENTS record PUTs, each changing one RRset's address (one event each).
    const instants: string[] = [];
    const buildStarted = Date.now();
    let next = 0;
    let lastReport = buildStarted;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        for (let n = next++; n < EVENTS; n = next++) {
          const i = n % RRSETS;
          const body = {
            records: [
              {
                subname: `h${i}`,
                type: 'A',
                ttl: 300,
                records: [`10.${1 + (Math.floor(n / RRSETS) % 200)}.${i >> 8}.${i & 255}`],
              },
            ],
          };
          let res = await http('PUT', `/zones/${ZONE}/records`, body);
          // Writers of one stream collide; the service re-decides 10 times, a client retries after that.
          while (res.status === 409) res = await http('PUT', `/zones/${ZONE}/records`, body);
          if (res.status !== 200) throw new Error(`PUT #${n}: ${res.status} ${res.text}`);
          if (n % Math.max(1, Math.floor(EVENTS / 200)) === 0) instants.push(new Date().toISOString());
          if (Date.now() - lastReport > 10_000) {
            lastReport = Date.now();
            console.log(`  built ${n} / ${EVENTS} events (${Math.round(n / ((Date.now() - buildStarted) / 1000))}/s)`);
          }
        }
      }),
    );
    const buildSeconds = (Date.now() - buildStarted) / 1000;
    console.log(
      `history bench: zone of ${RRSETS} RRsets, ${EVENTS} changes built in ${buildSeconds.toFixed(0)} s (${Math.round(EVENTS / buildSeconds)}/s)`,
    );
    // One history read waits for the projection to reach the head: the reads below measure a caught-up model.
    const caughtUp = Date.now();
    await timed(http, [`/zones/${ZONE}/history?limit=1`]);
    console.log(`history projection caught up ${((Date.now() - caughtUp) / 1000).toFixed(1)} s after the last write`);

    // Cursors spread over the history: walk it once at limit=100, keeping some.
    const cursors: string[] = [];
    let cursor: string | null = null;
    let walked = 0;
    do {
      const res: { status: number; text: string } = await http(
        'GET',
        `/zones/${ZONE}/history?limit=100${cursor ? `&cursor=${cursor}` : ''}`,
      );
      const page = JSON.parse(res.text) as { next_cursor: string | null };
      cursor = page.next_cursor;
      if (cursor && walked++ % 10 === 0) cursors.push(cursor);
    } while (cursor);

    const pick = <T>(list: T[], k: number) => list[(k * 7919) % list.length];
    const kinds: Array<{ name: string; past: (k: number) => string; now: string }> = [
      {
        name: 'zone state (as_of vs current)',
        past: (k) => `/zones/${ZONE}?as_of=${encodeURIComponent(pick(instants, k))}`,
        now: `/zones/${ZONE}`,
      },
      {
        name: 'history page of 50 (deep cursor vs first page)',
        past: (k) => `/zones/${ZONE}/history?cursor=${pick(cursors, k)}`,
        now: `/zones/${ZONE}/history`,
      },
      {
        name: 'resolve h7 A (as_of vs now)',
        past: (k) => `/zones/${ZONE}/resolve?name=h7.${ZONE}&type=A&as_of=${encodeURIComponent(pick(instants, k))}`,
        now: `/zones/${ZONE}/resolve?name=h7.${ZONE}&type=A`,
      },
    ];
    const results = new Map<string, { past: number[]; now: number[] }>(
      kinds.map((k) => [k.name, { past: [], now: [] }]),
    );
    // Warm-up (JIT, caches), not counted.
    for (const kind of kinds)
      await timed(
        http,
        Array.from({ length: 50 }, (_, k) => (k % 2 ? kind.now : kind.past(k))),
      );
    for (let round = 0; round < ROUNDS; round++) {
      for (const kind of kinds) {
        const r = results.get(kind.name)!;
        r.past.push(
          ...(await timed(
            http,
            Array.from({ length: READS }, (_, k) => kind.past(round * READS + k)),
          )),
        );
        r.now.push(
          ...(await timed(
            http,
            Array.from({ length: READS }, () => kind.now),
          )),
        );
      }
    }
    console.log(
      `\n${'read'.padEnd(48)}${'p50 ms'.padStart(8)}${'p99 ms'.padStart(8)}   ${'current p50'.padStart(11)}${'p99'.padStart(8)}`,
    );
    for (const [name, r] of results) {
      const past = [...r.past].sort((a, b) => a - b);
      const now = [...r.now].sort((a, b) => a - b);
      console.log(
        `${name.padEnd(48)}${ms(percentile(past, 50))}${ms(percentile(past, 99))}   ` +
          `${ms(percentile(now, 50)).padStart(11)}${ms(percentile(now, 99))}`,
      );
    }
    console.log(
      `(${ROUNDS} rounds × ${READS} reads of each kind, one at a time over HTTP keep-alive; as_of at ` +
        `${instants.length} instants spread over the history)`,
    );
    await http.close();
  } finally {
    await service.stop();
  }
}

if (require.main === module) {
  run().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
