import { checkSeries, CheckFact, incidentsOf } from './checks';

const check = (at: string, up: boolean, rt: number | null = up ? 20 : null): CheckFact => ({
  at,
  is_up: up,
  response_time_ms: rt,
  error: up ? null : 'connection refused',
  port: 443,
});

describe('uptime from raw checks', () => {
  const now = new Date('2026-11-27T10:30:30Z');

  it('buckets the last hour per minute, every minute present, response times of successful checks only', () => {
    const points = checkSeries(
      [
        check('2026-11-27T10:30:05Z', true, 10),
        check('2026-11-27T10:30:20Z', true, 30),
        check('2026-11-27T10:29:10Z', false),
      ],
      '1h',
      now,
    );
    expect(points).toHaveLength(60);
    expect(points[0].at).toBe('2026-11-27T09:31:00Z');
    expect(points[59]).toEqual({
      at: '2026-11-27T10:30:00Z',
      checks: 2,
      uptime_percentage: 100,
      avg_response_time_ms: 20,
    });
    expect(points[58]).toEqual({
      at: '2026-11-27T10:29:00Z',
      checks: 1,
      uptime_percentage: 0,
      avg_response_time_ms: null,
    });
    expect(points[10]).toEqual({
      at: '2026-11-27T09:41:00Z',
      checks: 0,
      uptime_percentage: null,
      avg_response_time_ms: null,
    });
    expect(checkSeries([], '24h', now)).toHaveLength(96);
    expect(checkSeries([], '6h', now)).toHaveLength(72);
  });

  it('finds down periods with their durations, newest first, the open one lasting until now', () => {
    const incidents = incidentsOf(
      [
        check('2026-11-27T10:00:00Z', true),
        check('2026-11-27T10:05:00Z', false),
        check('2026-11-27T10:10:00Z', false),
        check('2026-11-27T10:15:00Z', true),
        check('2026-11-27T10:20:00Z', false),
      ],
      now,
    );
    expect(incidents).toEqual([
      {
        started_at: '2026-11-27T10:20:00Z',
        ended_at: null,
        duration_seconds: 630,
        failed_checks: 1,
        error: 'connection refused',
      },
      {
        started_at: '2026-11-27T10:05:00Z',
        ended_at: '2026-11-27T10:15:00Z',
        duration_seconds: 600,
        failed_checks: 2,
        error: 'connection refused',
      },
    ]);
    expect(incidentsOf([check('2026-11-27T10:00:00Z', true)], now)).toEqual([]);
  });
});
