import { retryDelayMs } from './backoff';

describe('webhook retry backoff', () => {
  it('retries first within 5 s, then doubles, with ±25 % jitter', () => {
    expect(retryDelayMs(1, 0)).toBe(1_500);
    expect(retryDelayMs(1, 0.999)).toBeLessThan(2_500);
    expect(retryDelayMs(2, 0.5)).toBe(4_000);
    expect(retryDelayMs(3, 0.5)).toBe(8_000);
  });

  it('never waits more than an hour between tries, and keeps retrying for more than 24 h', () => {
    expect(retryDelayMs(40, 0.999)).toBe(3_600_000);
    let elapsed = 0;
    let attempt = 1;
    for (; elapsed < 24 * 3_600_000; attempt++) elapsed += retryDelayMs(attempt, 0.5);
    // Hourly after the 12th try: 24 h are covered after a few dozen attempts, none skipped.
    expect(attempt).toBeGreaterThan(20);
    expect(attempt).toBeLessThan(40);
  });

  it('honours a lower maximum (tests shorten the wait of a long outage this way)', () => {
    expect(retryDelayMs(10, 0.5, 5_000)).toBe(5_000);
  });
});
