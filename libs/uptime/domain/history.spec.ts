import {
  addDaily,
  addDailyPacked,
  addHourly,
  addHourlyPacked,
  Bucket,
  dayKey,
  historySeries,
  hourKey,
  packBuckets,
  percentage,
  unpackBuckets,
  windowTallies,
} from './history';
import { currentStatus, dashboard, LastCheck } from './status';

const H = 3_600_000;
const D = 24 * H;
const now = Date.parse('2026-03-31T12:30:00Z');

const fold = (checks: Array<[number, boolean]>) =>
  checks.reduce((acc, [at, up]) => ({ hourly: addHourly(acc.hourly, at, up), daily: addDaily(acc.daily, at, up) }), {
    hourly: [] as Bucket[],
    daily: [] as Bucket[],
  });

describe('uptime history buckets', () => {
  it('keys buckets by UTC hour and day', () => {
    expect(hourKey(now)).toBe('2026-03-31T12:00:00Z');
    expect(dayKey(now)).toBe('2026-03-31');
  });

  it('counts checks per bucket and keeps at most 24 hours and 30 days', () => {
    const checks: Array<[number, boolean]> = [];
    for (let h = 0; h < 24 * 40; h++) checks.push([now - h * H, h % 4 !== 0]);
    const { hourly, daily } = fold(checks.reverse());
    expect(hourly).toHaveLength(24);
    expect(hourly[0].t).toBe('2026-03-30T13:00:00Z');
    expect(daily).toHaveLength(30);
    expect(daily[0].t).toBe('2026-03-02');
    expect(hourly.reduce((n, b) => n + b.checks, 0)).toBe(24);
  });

  it('drops a check older than the retention instead of evicting newer buckets', () => {
    const { hourly } = fold([
      [now, true],
      [now - 30 * H, false],
    ]);
    expect(hourly).toEqual([{ t: '2026-03-31T12:00:00Z', checks: 1, up: 1 }]);
  });

  it('computes 24h from hourly and 7d/30d from daily buckets; an empty window is null', () => {
    // 3 checks in the last day (2 up), 4 checks 5 days ago (all down), 10 checks 20 days ago (all up).
    const { hourly, daily } = fold([
      ...Array.from({ length: 10 }, (_, i): [number, boolean] => [now - 20 * D + i * H, true]),
      ...Array.from({ length: 4 }, (_, i): [number, boolean] => [now - 5 * D + i * H, false]),
      [now - 2 * H, true],
      [now - H, false],
      [now, true],
    ]);
    const w = windowTallies(hourly, daily, new Date(now));
    expect(percentage(w.h24)).toBe(66.67);
    expect(percentage(w.d7)).toBe(28.57);
    expect(percentage(w.d30)).toBe(70.59);
    const later = windowTallies(hourly, daily, new Date(now + 40 * D));
    expect([percentage(later.h24), percentage(later.d7), percentage(later.d30)]).toEqual([null, null, null]);
  });
});

describe('current status and dashboard', () => {
  const up: LastCheck = { at: '2026-03-31T12:00:00.000Z', is_up: true, response_time_ms: 12, error: null };
  const down: LastCheck = {
    at: '2026-03-31T12:00:00.000Z',
    is_up: false,
    response_time_ms: null,
    error: 'connection refused',
  };
  const facts = { monitorEnabled: true, enabledAt: '2026-03-31T11:00:00.000Z', hasIp: true };

  it('orders disabled, no_ip, pending, then the last check', () => {
    expect(currentStatus({ ...facts, monitorEnabled: false, last: up })).toBe('disabled');
    expect(currentStatus({ ...facts, hasIp: false, last: up })).toBe('no_ip');
    expect(currentStatus({ ...facts, last: null })).toBe('pending');
    // Re-enabled after the last check: pending until the next one.
    expect(currentStatus({ ...facts, enabledAt: '2026-03-31T12:10:00.000Z', last: up })).toBe('pending');
    expect(currentStatus({ ...facts, last: up })).toBe('operational');
    expect(currentStatus({ ...facts, last: down })).toBe('down');
  });

  it('pools checks of monitored domains only and averages the latest up response times', () => {
    const w = (checks: number, upCount: number) => ({
      h24: { checks, up: upCount },
      d7: { checks, up: upCount },
      d30: { checks, up: upCount },
    });
    const result = dashboard([
      { status: 'operational', last: up, windows: w(10, 10) },
      { status: 'operational', last: { ...up, response_time_ms: 30 }, windows: w(10, 9) },
      { status: 'down', last: down, windows: w(20, 5) },
      { status: 'pending', last: null, windows: w(0, 0) },
      { status: 'disabled', last: up, windows: w(100, 0) },
    ]);
    expect(result).toEqual({
      overall_uptime_24h: 60,
      overall_uptime_7d: 60,
      overall_uptime_30d: 60,
      domains_monitored: 4,
      domains_up: 2,
      domains_down: 1,
      average_response_time_ms: 21,
    });
    expect(dashboard([])).toMatchObject({
      overall_uptime_24h: null,
      domains_monitored: 0,
      average_response_time_ms: null,
    });
  });
});

describe('uptime history series (chart data)', () => {
  // Two up checks (10 ms, 30 ms) and one down in the current hour, one up check (50 ms) two days ago.
  const checks: Array<[number, boolean, number | null]> = [
    [now - 10 * 60_000, true, 10],
    [now - 5 * 60_000, true, 30],
    [now - 60_000, false, null],
    [now - 2 * D, true, 50],
  ];
  const { hourly, daily } = checks.reduce(
    (acc, [at, up, rt]) => ({ hourly: addHourly(acc.hourly, at, up, rt), daily: addDaily(acc.daily, at, up, rt) }),
    {
      hourly: [] as Bucket[],
      daily: [] as Bucket[],
    },
  );

  it('gives every hour of the last 24, oldest first, with uptime and the mean response time of up checks', () => {
    const series = historySeries(hourly, daily, '24h', new Date(now));
    expect(series).toHaveLength(24);
    expect(series[0].at).toBe('2026-03-30T13:00:00Z');
    expect(series[23]).toEqual({
      at: '2026-03-31T12:00:00Z',
      checks: 3,
      uptime_percentage: 66.67,
      avg_response_time_ms: 20,
    });
    expect(series[22]).toEqual({
      at: '2026-03-31T11:00:00Z',
      checks: 0,
      uptime_percentage: null,
      avg_response_time_ms: null,
    });
  });

  it('gives days for 7 and 30 days, with empty days as nulls', () => {
    const week = historySeries(hourly, daily, '7d', new Date(now));
    expect(week.map((p) => p.at)).toEqual(
      ['2026-03-25', '2026-03-26', '2026-03-27', '2026-03-28', '2026-03-29', '2026-03-30', '2026-03-31'].map(
        (d) => `${d}T00:00:00Z`,
      ),
    );
    expect(week[4]).toEqual({
      at: '2026-03-29T00:00:00Z',
      checks: 1,
      uptime_percentage: 100,
      avg_response_time_ms: 50,
    });
    expect(week[6]).toMatchObject({ checks: 3, avg_response_time_ms: 20 });
    expect(week[5].uptime_percentage).toBeNull();
    expect(historySeries(hourly, daily, '30d', new Date(now))).toHaveLength(30);
  });

  it('reads buckets written before response times were kept as having none', () => {
    const old: Bucket[] = [{ t: '2026-03-31T12:00:00Z', checks: 2, up: 2 }];
    expect(historySeries(old, [], '24h', new Date(now))[23]).toEqual({
      at: '2026-03-31T12:00:00Z',
      checks: 2,
      uptime_percentage: 100,
      avg_response_time_ms: null,
    });
  });
});

describe('packed history buckets (how the uptime read model stores them)', () => {
  const HOUR = 3_600_000;
  const start = Date.parse('2026-01-01T00:00:00Z');

  it('unpacks what it packed, with and without response times; reads arrays written before packing', () => {
    const buckets: Bucket[] = [
      { t: '2026-01-01', checks: 3, up: 2, rt_sum: 30, rt_n: 2 },
      { t: '2026-01-02', checks: 1, up: 0 },
    ];
    expect(packBuckets(buckets)).toBe('2026-01-01,3,2,30,2;2026-01-02,1,0');
    expect(unpackBuckets(packBuckets(buckets))).toEqual(buckets);
    expect(unpackBuckets(buckets)).toEqual(buckets);
    expect(unpackBuckets('')).toEqual([]);
    expect(unpackBuckets(undefined)).toEqual([]);
  });

  it('adds checks exactly as the array form does over 40 days of checks every 300 s, late and failed ones included', () => {
    let hourly: Bucket[] = [];
    let daily: Bucket[] = [];
    // Starts from an array (a document projected before packing), as an upgraded store does.
    let packedHourly: string | Bucket[] = [];
    let packedDaily: string | Bucket[] = [];
    let seed = 7;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    for (let at = start; at < start + 40 * 24 * HOUR; at += 300_000) {
      // One check in 50 arrives late (up to two days), one in 10 fails.
      const checkedAt = random() < 0.02 ? at - Math.floor(random() * 48 * HOUR) : at;
      const up = random() >= 0.1;
      const rt = up ? Math.floor(random() * 100) : null;
      hourly = addHourly(hourly, checkedAt, up, rt);
      daily = addDaily(daily, checkedAt, up, rt);
      packedHourly = addHourlyPacked(packedHourly, checkedAt, up, rt);
      packedDaily = addDailyPacked(packedDaily, checkedAt, up, rt);
    }
    expect(typeof packedHourly).toBe('string');
    expect(unpackBuckets(packedHourly)).toEqual(hourly);
    expect(unpackBuckets(packedDaily)).toEqual(daily);
    expect(hourly).toHaveLength(24);
    expect(daily).toHaveLength(30);
  });
});
