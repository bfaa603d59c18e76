import { emptyCounts } from './rollup';
import { volumePoint, volumeSlots } from './volume';

const at = (iso: string) => Date.parse(iso);

describe('volume series slots', () => {
  it('24h: the 24 hours ending with the current one, oldest first', () => {
    const { granularity, starts } = volumeSlots(at('2026-03-20T12:30:00Z'), '24h');
    expect(granularity).toBe('hour');
    expect(starts).toHaveLength(24);
    expect(new Date(starts[0]).toISOString()).toBe('2026-03-19T13:00:00.000Z');
    expect(new Date(starts[23]).toISOString()).toBe('2026-03-20T12:00:00.000Z');
  });

  it('7d and 30d: UTC days ending with today', () => {
    const week = volumeSlots(at('2026-03-20T00:00:00Z'), '7d');
    expect(week.granularity).toBe('day');
    expect(week.starts.map((s) => new Date(s).toISOString().slice(0, 10))).toEqual([
      '2026-03-14',
      '2026-03-15',
      '2026-03-16',
      '2026-03-17',
      '2026-03-18',
      '2026-03-19',
      '2026-03-20',
    ]);
    const month = volumeSlots(at('2026-03-20T23:59:59Z'), '30d');
    expect(month.starts).toHaveLength(30);
    expect(new Date(month.starts[0]).toISOString()).toBe('2026-02-19T00:00:00.000Z');
  });

  it('a point counts queries and the error rcodes of its bucket', () => {
    const c = emptyCounts();
    c.total = 10;
    c.rcodes = { NOERROR: 6, NXDOMAIN: 2, SERVFAIL: 1, REFUSED: 1 };
    expect(volumePoint(at('2026-03-20T12:00:00Z'), c)).toEqual({ at: '2026-03-20T12:00:00Z', queries: 10, errors: 4 });
    expect(volumePoint(at('2026-03-20T12:00:00Z'), emptyCounts())).toEqual({
      at: '2026-03-20T12:00:00Z',
      queries: 0,
      errors: 0,
    });
  });
});
