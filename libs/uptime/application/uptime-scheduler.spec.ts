import { ManualClock } from '../../shared/clock';
import { CheckSink } from './check-recorder';
import { TargetChange, TargetSource } from './targets';
import { Probe } from './tcp-probe';
import { UptimeScheduler } from './uptime-scheduler';
import { UptimeSettings } from './uptime-settings';

/** An in-memory target table with the read model's cursor semantics. */
class MemoryTargets implements TargetSource {
  private rows = new Map<number, TargetChange & { pos: number }>();
  private pos = 0;
  put(change: TargetChange) {
    this.rows.set(change.domainId, { ...change, pos: ++this.pos });
  }
  async changesSince(cursor: number) {
    const changes = [...this.rows.values()].filter((r) => r.pos > cursor);
    return { changes, cursor: Math.max(cursor, ...changes.map((c) => c.pos)) };
  }
}

const settings = (index = 0, count = 1): UptimeSettings => ({
  intervalMs: 60_000,
  ports: [443, 80],
  timeoutMs: 100,
  concurrency: 8,
  partition: { index, count },
  // The targets below are loopback addresses (the probe is a fake): the operator's switch lets them through.
  allowPrivateTargets: true,
});

function harness(
  probe: Probe,
  index = 0,
  count = 1,
  source = new MemoryTargets(),
  clock = new ManualClock(new Date('2026-01-01T00:00:00Z')),
) {
  const recorded: Array<{ domainId: number; ip: string; up: boolean; port: number }> = [];
  const sink: CheckSink = {
    async record(target, _at, result) {
      recorded.push({ domainId: target.domainId, ip: target.ip, up: result.up, port: result.port });
    },
  };
  return {
    scheduler: new UptimeScheduler(settings(index, count), source, sink, clock, undefined, probe),
    recorded,
    source,
    clock,
  };
}

const upProbe: Probe = async (_ip, port) => ({ up: true, responseTimeMs: 1, error: null, port });

describe('uptime scheduler', () => {
  it('checks each monitored domain with an address once per interval, and nothing else', async () => {
    const h = harness(upProbe);
    for (let id = 1; id <= 300; id++)
      h.source.put({
        domainId: id,
        accountId: 1,
        monitored: id % 3 !== 0,
        ip: id % 10 === 1 ? null : `127.0.0.${id % 200}`,
      });
    // The first call hands out only the current slot; from then on one interval covers every slot once.
    await h.scheduler.runDue();
    h.recorded.length = 0;
    for (let s = 0; s < 60; s++) {
      h.clock.advance(1000);
      await h.scheduler.runDue();
    }
    const ids = h.recorded.map((r) => r.domainId).sort((a, b) => a - b);
    const expected = Array.from({ length: 300 }, (_, i) => i + 1).filter((id) => id % 3 !== 0 && id % 10 !== 1);
    expect(ids).toEqual(expected);
  });

  it('splits domains between workers so none is checked by two', async () => {
    const source = new MemoryTargets();
    for (let id = 1; id <= 1000; id++) source.put({ domainId: id, accountId: 1, monitored: true, ip: '127.0.0.1' });
    const clock = new ManualClock(new Date('2026-01-01T00:00:00Z'));
    const workers = [harness(upProbe, 0, 2, source, clock), harness(upProbe, 1, 2, source, clock)];
    for (const w of workers) await w.scheduler.sync(clock.now().getTime());
    clock.advance(1);
    for (const w of workers) w.scheduler.wheel.due(clock.now().getTime());
    clock.advance(60_000);
    for (const w of workers) await w.scheduler.runDue();
    const [a, b] = workers.map((w) => new Set(w.recorded.map((r) => r.domainId)));
    expect(a.size + b.size).toBe(1000);
    expect([...a].filter((id) => b.has(id))).toEqual([]);
    expect(Math.abs(a.size - 500)).toBeLessThan(80);
  });

  it('checks a domain at its new address from the next check on, and stops when monitoring stops', async () => {
    const h = harness(upProbe);
    h.source.put({ domainId: 5, accountId: 1, monitored: true, ip: '127.0.0.1' });
    await h.scheduler.runDue();
    h.clock.advance(60_000);
    await h.scheduler.runDue();
    h.source.put({ domainId: 5, accountId: 1, monitored: true, ip: '127.0.0.2' });
    h.clock.advance(60_000);
    await h.scheduler.runDue();
    h.source.put({ domainId: 5, accountId: 1, monitored: false, ip: '127.0.0.2' });
    h.clock.advance(60_000);
    await h.scheduler.runDue();
    expect(h.recorded.map((r) => r.ip)).toEqual(['127.0.0.1', '127.0.0.2']);
  });

  it('tries the ports in turn and never runs two checks of one domain at once', async () => {
    const calls: number[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slowProbe: Probe = async (_ip, port) => {
      calls.push(port);
      if (port === 443) return { up: false, responseTimeMs: null, error: 'connection refused', port };
      await gate;
      return { up: true, responseTimeMs: 3, error: null, port };
    };
    const h = harness(slowProbe);
    h.source.put({ domainId: 9, accountId: 1, monitored: true, ip: '127.0.0.1' });
    await h.scheduler.tick();
    for (let turn = 0; turn < 3; turn++) {
      h.clock.advance(60_000);
      await h.scheduler.tick();
    }
    release();
    await h.scheduler.idle();
    expect(h.recorded).toEqual([{ domainId: 9, ip: '127.0.0.1', up: true, port: 80 }]);
    expect(calls).toEqual([443, 80]);
    expect(h.scheduler.stats.skippedBusy).toBeGreaterThanOrEqual(2);
  });

  it('never connects to a target in a refused range (stored before the rule), recording why', async () => {
    const calls: string[] = [];
    const probe: Probe = async (ip, port) => {
      calls.push(`${ip}:${port}`);
      return { up: true, responseTimeMs: 1, error: null, port };
    };
    const errors: Array<string | null> = [];
    const source = new MemoryTargets();
    const sink: CheckSink = {
      async record(_target, _at, result) {
        errors.push(result.error);
      },
    };
    const production = { ...settings(), allowPrivateTargets: false };
    const clock = new ManualClock(new Date('2026-01-01T00:00:00Z'));
    const scheduler = new UptimeScheduler(production, source, sink, clock, undefined, probe);
    for (const [id, ip] of [
      [1, '169.254.169.254'],
      [2, '10.0.0.1'],
      [3, '127.0.0.1'],
      [4, '::ffff:127.0.0.1'],
      [5, '192.0.2.7'],
    ] as const) {
      source.put({ domainId: id, accountId: 1, monitored: true, ip });
    }
    // One whole interval, so every slot comes due once.
    for (let second = 0; second <= 60; second++) {
      await scheduler.runDue();
      clock.advance(1000);
    }
    expect(calls).toEqual(['192.0.2.7:443']);
    expect(errors.sort()).toEqual([
      null,
      'target refused: 10.0.0.1 is a private (RFC 1918) address',
      'target refused: 127.0.0.1 is a loopback address',
      'target refused: 169.254.169.254 is a link-local address',
      'target refused: ::ffff:127.0.0.1 is a loopback address (as IPv4-mapped IPv6)',
    ]);
  });
});
