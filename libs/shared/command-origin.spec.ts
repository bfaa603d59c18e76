import { currentOrigin, IDLE_BEFORE_DISABLE_MS, openOrigin, originTracking, runWithOrigin } from './command-origin';

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('command origin (decision 0109)', () => {
  beforeEach(() => jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] }));
  afterEach(() => jest.useRealTimers());

  it('carries the origin through everything the scope awaits', async () => {
    const seen = await runWithOrigin({ correlationId: 'c1' }, async () => {
      await tick();
      await Promise.resolve();
      return currentOrigin();
    });
    expect(seen).toEqual({ correlationId: 'c1' });
  });

  it('turns the storage (and with it the promise hooks) off once no scope has been open for a while', async () => {
    await runWithOrigin({ correlationId: 'c2' }, async () => tick());
    await tick();
    expect(originTracking()).toEqual({ open: 0, enabled: true });
    jest.advanceTimersByTime(IDLE_BEFORE_DISABLE_MS - 1);
    expect(originTracking().enabled).toBe(true);
    jest.advanceTimersByTime(1);
    expect(originTracking()).toEqual({ open: 0, enabled: false });

    expect(currentOrigin()).toBeUndefined();
  });

  it('keeps the storage on while a request scope is open, and each scope keeps its own origin', async () => {
    const seen: (string | undefined)[] = [];
    let inner: Promise<void> | undefined;
    const close = openOrigin({ correlationId: 'req-a' }, () => {
      inner = (async () => {
        await tick();
        jest.advanceTimersByTime(IDLE_BEFORE_DISABLE_MS * 2);
        seen.push(currentOrigin()?.correlationId);
      })();
    });
    await runWithOrigin({ correlationId: 'pm-b' }, async () => {
      await tick();
      seen.push(currentOrigin()?.correlationId);
    });
    await inner;
    expect([...seen].sort()).toEqual(['pm-b', 'req-a']);
    expect(originTracking()).toEqual({ open: 1, enabled: true });
    close();
    close(); // once only
    expect(originTracking().open).toBe(0);
    jest.advanceTimersByTime(IDLE_BEFORE_DISABLE_MS);
    expect(originTracking().enabled).toBe(false);
  });

  it('a scope opened again within the idle time keeps the storage on', async () => {
    await runWithOrigin({ correlationId: 'c3' }, async () => tick());
    await tick();
    jest.advanceTimersByTime(IDLE_BEFORE_DISABLE_MS - 1);
    const close = openOrigin({ correlationId: 'c4' }, () => undefined);
    jest.advanceTimersByTime(IDLE_BEFORE_DISABLE_MS);
    expect(originTracking()).toEqual({ open: 1, enabled: true });
    close();
    jest.advanceTimersByTime(IDLE_BEFORE_DISABLE_MS);
    expect(originTracking().enabled).toBe(false);
  });

  it('a scope whose function throws or rejects closes', async () => {
    expect(() =>
      runWithOrigin({}, () => {
        throw new Error('x');
      }),
    ).toThrow('x');
    await expect(runWithOrigin({}, async () => Promise.reject(new Error('y')))).rejects.toThrow('y');
    await tick();
    expect(originTracking().open).toBe(0);
  });

  it('a promise made in a scope keeps its origin after the storage was off and on again', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let late: Promise<string | undefined> | undefined;
    await runWithOrigin({ correlationId: 'early' }, async () => {
      late = gate.then(() => currentOrigin()?.correlationId);
    });
    await tick();
    jest.advanceTimersByTime(IDLE_BEFORE_DISABLE_MS);
    expect(originTracking().enabled).toBe(false);
    const close = openOrigin({ correlationId: 'other' }, () => release());
    expect(await late).toBe('early');
    close();
  });
});
