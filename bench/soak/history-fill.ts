/**
 * History written straight into a stopped installation's event store by the service's own
 * generators (shared by the history-growth and catch-up benchmarks): every host's daily
 * DDNS change through the domain decider, then the day's uptime checks of the first
 * `monitored` hosts through the uptime worker's sink, in the worker's order.
 */
import { domainDecider } from '../../libs/domains/domain/domain.decider';
import { domainStream } from '../../libs/domains/domain/domain.events';
import { EventStreams } from '../../libs/eventstore/event-streams';
import { EventStoreCheckSink } from '../../libs/uptime/application/check-recorder';
import { Host } from './driver';

export const DAY_MS = 86_400_000;
const CHECK_INTERVAL_MS = 300_000;
const INTERVALS_PER_COMMIT = 12;

/** What the fill needs of an installation: its hosts, and the simulated day it has reached (moved on by fillDay). */
export interface FilledInstallation {
  hosts: Host[];
  day: number;
}

/**
 * One simulated day of history, written by this process while the service is stopped
 * (`streams` over the installation's events.db, on the simulated `clock`): every host's
 * address change, then the day's checks.
 */
export async function fillDay(
  inst: FilledInstallation,
  streams: EventStreams,
  clock: { now: number },
  monitored: number,
): Promise<void> {
  inst.day++;
  const at = new Date(clock.now).toISOString();
  await Promise.all(
    inst.hosts.map((h, i) =>
      streams.handle(
        domainStream(h.id),
        domainDecider,
        {
          type: 'DdnsUpdate',
          accountId: h.account.id,
          ipv4: { kind: 'set', ip: `10.${inst.day}.${(i >> 8) & 255}.${i & 255}` },
          ipv6: { kind: 'keep' },
          at,
        },
        { actor: `ddns:key`, account_id: h.account.id, source_ip: '127.0.0.1' },
      ),
    ),
  );
  await appendChecks(inst, streams, clock, monitored);
}

/** A day of checks of every monitored host, from `clock.now` on, in the uptime worker's order and through its sink. */
export async function appendChecks(
  inst: FilledInstallation,
  streams: EventStreams,
  clock: { now: number },
  monitored: number,
): Promise<void> {
  const sink = new EventStoreCheckSink(streams, 'worker:0');
  const targets = inst.hosts
    .slice(0, monitored)
    .map((h) => ({ domainId: h.id, accountId: h.account.id, ip: '127.0.0.1' }));
  const dayEnd = clock.now + DAY_MS;
  while (clock.now < dayEnd) {
    // Appends made in one event-loop turn are committed together: one transaction per hour.
    const appended: Promise<void>[] = [];
    for (let i = 0; i < INTERVALS_PER_COMMIT; i++) {
      clock.now += CHECK_INTERVAL_MS;
      const checkedAt = new Date(clock.now);
      for (const t of targets)
        appended.push(sink.record(t, checkedAt, { up: true, responseTimeMs: 0, error: null, port: 80 }));
    }
    await Promise.all(appended);
  }
}
