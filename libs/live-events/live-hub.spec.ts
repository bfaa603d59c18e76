import type { EventStore, RecordedEvent, Subscription } from '../eventstore/event-store.port';
import type { ProjectionEngine } from '../projection-engine/projection-engine';
import { AppError } from '../shared/errors';
import { LIVE_LIMITS, LiveEventHub, LiveSink } from './live-hub';

/** A store whose subscription never yields: the hub's limits and heartbeats need no events. */
function quietStore(): EventStore {
  const subscription: Subscription = {
    close: async () => undefined,
    [Symbol.asyncIterator]: () => ({ next: () => new Promise<IteratorResult<RecordedEvent>>(() => undefined) }),
  };
  return { headPosition: async () => null, subscribeToAll: () => subscription } as unknown as EventStore;
}

const engine = { names: () => [], waitFor: async () => true } as unknown as ProjectionEngine;
const logger = { info: () => undefined, warn: () => undefined, error: () => undefined };

class MemorySink implements LiveSink {
  chunks: string[] = [];
  ended = false;
  pending = 0;
  write(chunk: string) {
    this.chunks.push(chunk);
  }
  buffered() {
    return this.pending;
  }
  end() {
    this.ended = true;
  }
}

describe('live hub: limits and heartbeats (decision 0085)', () => {
  let hub: LiveEventHub;
  beforeEach(() => {
    jest.useFakeTimers();
    hub = new LiveEventHub(quietStore(), engine, logger);
  });
  afterEach(async () => {
    await hub.beforeApplicationShutdown();
    jest.useRealTimers();
  });

  const open = (account: number, session: string, sink = new MemorySink(), valid = async () => true) =>
    hub.open(account, session, sink, valid).then(() => sink);

  it('caps streams per session and per account with 429 too_many_streams, before the response starts', async () => {
    for (let i = 0; i < LIVE_LIMITS.perSession; i++) await open(1, 's1');
    const begun = jest.fn();
    await expect(hub.open(1, 's1', new MemorySink(), async () => true, begun)).rejects.toMatchObject({
      status: 429,
      code: 'too_many_streams',
    } satisfies Partial<AppError>);
    expect(begun).not.toHaveBeenCalled();
    // Other sessions of the same account fill its account-wide share.
    for (let i = 0; hub.openFor(1) < LIVE_LIMITS.perAccount; i++) await open(1, `other-${i}`);
    await expect(open(1, 'another-session')).rejects.toMatchObject({ status: 429 });
    // Another account is not affected by the first one's streams.
    await expect(open(2, 'x')).resolves.toBeInstanceOf(MemorySink);
  });

  it('sends ready first, a heartbeat comment every 15 s, and ends the stream with session_ended once the session is gone', async () => {
    let valid = true;
    const sink = await open(3, 's', new MemorySink(), async () => valid);
    expect(sink.chunks[0]).toMatch(/^retry: 2000\nevent: ready\ndata: \{"topics":\[/);
    jest.advanceTimersByTime(LIVE_LIMITS.heartbeatMs);
    await Promise.resolve();
    expect(sink.chunks.at(-1)).toBe(': heartbeat\n\n');
    valid = false;
    // The session is checked again at the next heartbeat past the re-check interval.
    jest.advanceTimersByTime(LIVE_LIMITS.recheckMs);
    for (let i = 0; i < 5; i++) await Promise.resolve();
    expect(sink.chunks.at(-1)).toBe('event: session_ended\ndata: {}\n\n');
    expect(sink.ended).toBe(true);
    expect(hub.openFor(3)).toBe(0);
  });

  it('drops a stream whose client lets more than 64 KiB pile up unread', async () => {
    const sink = await open(4, 's');
    sink.pending = LIVE_LIMITS.maxBufferedBytes + 1;
    jest.advanceTimersByTime(LIVE_LIMITS.heartbeatMs);
    await Promise.resolve();
    expect(sink.ended).toBe(true);
    expect(hub.openFor(4)).toBe(0);
  });
});
