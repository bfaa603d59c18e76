import { TimeShare } from './time-share';

describe('TimeShare', () => {
  afterEach(() => jest.useRealTimers());

  it('lets work run at once within its burst, then only its share of the time', async () => {
    jest.useFakeTimers();
    let now = 0;
    const share = new TimeShare({ share: 0.2, burstMs: 50, now: () => now });
    await share.turn();
    share.spent(40);
    await share.turn(); // 10 ms of budget left
    share.spent(30); // 20 ms in debt: 100 ms at a fifth

    let resumed = false;
    void share.turn().then(() => (resumed = true));
    now += 99;
    await jest.advanceTimersByTimeAsync(99);
    expect(resumed).toBe(false);
    now += 2;
    await jest.advanceTimersByTimeAsync(2);
    expect(resumed).toBe(true);
    expect(share.waits).toBeGreaterThanOrEqual(1);
  });

  it('saves up no more than the burst while idle', async () => {
    let now = 0;
    const share = new TimeShare({ share: 0.2, burstMs: 50, now: () => now });
    now += 60_000;
    share.spent(50);
    jest.useFakeTimers();
    let resumed = false;
    void share.turn().then(() => (resumed = true));
    await jest.advanceTimersByTimeAsync(0);
    expect(resumed).toBe(false);
  });
});
