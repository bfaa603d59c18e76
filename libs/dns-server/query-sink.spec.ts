import { BufferedQuerySink, type AnsweredQuery } from './query-sink';

const q = (name: string): AnsweredQuery => ({
  name,
  type: 'A',
  rcode: 'NOERROR',
  clientIp: '127.0.0.1',
  transport: 'udp',
  dnssecOk: false,
  edns: false,
  ednsUdpSize: null,
  truncated: false,
  responseBytes: 60,
  durationMs: 0.01,
  timestamp: Date.now(),
  zone: 'example.com',
  domain: 'example.com',
  accountId: null,
});

describe('BufferedQuerySink', () => {
  it('delivers in batches off the caller, in order', async () => {
    const batches: string[][] = [];
    const sink = new BufferedQuerySink((batch) => void batches.push(batch.map((b) => b.name)), {
      maxBatch: 2,
      flushIntervalMs: 10_000,
    });
    sink.record(q('a'));
    sink.record(q('b'));
    sink.record(q('c'));
    expect(batches).toEqual([]);
    await new Promise((r) => setImmediate(r));
    await sink.close();
    expect(batches).toEqual([['a', 'b'], ['c']]);
    expect(sink.delivered).toBe(3);
  });

  it('drops beyond its bound while a slow consumer works, and survives consumer errors', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const seen: string[] = [];
    const errors: unknown[] = [];
    let calls = 0;
    const sink = new BufferedQuerySink(
      async (batch) => {
        calls++;
        if (calls === 1) throw new Error('db down');
        await gate;
        seen.push(...batch.map((b) => b.name));
      },
      { maxBatch: 1, maxPending: 2, flushIntervalMs: 10_000, onError: (e) => errors.push(e) },
    );
    sink.record(q('lost-to-error'));
    const first = sink.flush();
    await new Promise((r) => setImmediate(r));
    for (const name of ['x', 'y', 'z']) sink.record(q(name));
    release();
    await first;
    await sink.close();
    expect(errors).toHaveLength(1);
    expect(sink.dropped).toBeGreaterThanOrEqual(1);
    expect(seen.length + sink.dropped).toBe(3);
  });

  it('counts batch items by the queries they hold: batches, bound and drops are in queries', async () => {
    const delivered: number[][] = [];
    const sink = new BufferedQuerySink<number[]>(
      (batch) => void delivered.push(batch.map((b) => b.length)),
      { maxBatch: 5, maxPending: 8, flushIntervalMs: 10_000 },
      (item) => item.length,
    );
    sink.record([1, 2, 3]);
    sink.record([4, 5]);
    sink.record([6, 7, 8]);
    expect(sink.pending).toBe(8);
    // Would pass maxPending: dropped whole, its queries counted.
    sink.record([9, 10]);
    expect(sink.dropped).toBe(2);
    await sink.close();
    // Items never split; a delivery stops before passing maxBatch queries.
    expect(delivered).toEqual([[3, 2], [3]]);
    expect(sink.delivered).toBe(8);
    expect(sink.pending).toBe(0);
  });
});
