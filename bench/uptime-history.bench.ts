/**
 * Does an uptime check cost the read side more once a month of history is kept? (issue 10:
 * the soak's simulated days took longer as they went, 69 s on day 1, ~90 s by day 30, and
 * the DDNS p99 rose with them.) Projects 30 simulated days of checks (every domain every
 * 300 s) through the real uptime projection into the embedded read store as deployed (on
 * disk, writer thread, default caches), keeping the store's keep-up back-pressure as the
 * engine does, and prints the CPU time per check of each day's projection: a domain's
 * document holds one more daily bucket each day (up to 30) and 24 hourly ones from day 2.
 *
 * Run: npm run build && node dist/bench/uptime-history.bench.js
 * Env: DOMAINS (100), DAYS (30).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RecordedEvent } from '../libs/eventstore/event-store.port';
import { EmbeddedReadStore } from '../libs/readstore/embedded/embedded-read-store';
import { CheckRecorded } from '../libs/uptime/domain/uptime.events';
import { UPTIME_DOMAINS, uptimeDomainsProjection } from '../projections/uptime-domains.projection';

const DOMAINS = Number(process.env.DOMAINS ?? 100);
const DAYS = Number(process.env.DAYS ?? 30);
const INTERVAL_MS = 300_000;
const START = Date.parse('2026-01-01T00:00:00Z');

const recorded = (type: string, data: unknown, position: number): RecordedEvent => ({
  id: `e${position}`,
  streamId: 'bench',
  revision: position,
  type,
  data,
  metadata: {},
  position: { commit: BigInt(position), prepare: BigInt(position) },
  created: new Date(START),
});

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'uptime-history-'));
  const store = new EmbeddedReadStore({ file: join(dir, 'readmodels.db') });
  const ctx = {
    position: 0,
    collection: (m: unknown) => store.collection(typeof m === 'string' ? m : UPTIME_DOMAINS.name),
  };
  let position = 0;
  const apply = async (event: RecordedEvent) => {
    ctx.position = Number(event.position.commit);
    await uptimeDomainsProjection.apply(event, ctx as never);
  };
  try {
    await uptimeDomainsProjection.setup?.(ctx as never);
    for (let id = 1; id <= DOMAINS; id++) {
      await apply(
        recorded(
          'DomainCreated',
          {
            domain_id: id,
            account_id: 1,
            fqdn: `h${id}.dyn.test`,
            record_type: 'A',
            record_ip: '192.0.2.1',
            ttl: 60,
            created_at: 't',
          },
          ++position,
        ),
      );
      await apply(
        recorded(
          'MonitorEnabled',
          { account_id: 1, domain_id: id, fqdn: `h${id}.dyn.test`, at: new Date(START).toISOString() },
          ++position,
        ),
      );
    }
    console.log(`uptime-history: ${DOMAINS} monitored domains, ${DAYS} days of checks every 300 s`);
    console.log('day  checks  cpu us/check  doc bytes');
    const perDay: number[] = [];
    for (let day = 0; day < DAYS; day++) {
      const before = process.cpuUsage();
      let checks = 0;
      for (let at = START + day * 86_400_000; at < START + (day + 1) * 86_400_000; at += INTERVAL_MS) {
        const checkedAt = new Date(at).toISOString();
        for (let id = 1; id <= DOMAINS; id++) {
          const data: CheckRecorded['data'] = {
            domain_id: id,
            account_id: 1,
            checked_at: checkedAt,
            is_up: true,
            response_time_ms: 3,
            error: null,
            ip: '192.0.2.1',
            port: 443,
          };
          await apply(recorded('CheckRecorded', data, ++position));
          checks++;
        }
        // The engine's back-pressure: wait while the writer thread falls behind.
        await store.keepUp();
      }
      await store.committed();
      const used = process.cpuUsage(before);
      const cpuUs = (used.user + used.system) / checks;
      perDay.push(cpuUs);
      const doc = await store.collection(UPTIME_DOMAINS.name).findOne({ _id: 1 });
      if (day === 0 || (day + 1) % 5 === 0)
        console.log(
          `${String(day + 1).padStart(3)}  ${String(checks).padStart(6)}  ${cpuUs.toFixed(1).padStart(12)}  ` +
            `${String(JSON.stringify(doc).length).padStart(9)}`,
        );
    }
    const lastDay = perDay[perDay.length - 1];
    // Day 1 holds no full hourly window yet; day 2 is the first with 24 hourly buckets.
    console.log(
      `cpu per check: day 2 ${perDay[1].toFixed(1)} us, day ${DAYS} ${lastDay.toFixed(1)} us, ratio ${(lastDay / perDay[1]).toFixed(2)}`,
    );
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
