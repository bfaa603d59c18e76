import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { MAX_TABLE_SIZE, QueryBatchDecoder, QueryBatchEncoder, type LoggedQuery, type QueryBatch } from './query-batch';
import { BACKLOG, DROPPED, newControl, QueryLogChannel, type ChannelMessage } from './query-log-channel';

const query = (over: Partial<LoggedQuery> = {}): LoggedQuery => ({
  timestamp: 1_700_000_000_000.25,
  durationMs: 0.0421,
  accountId: '42',
  domain: 'example.test',
  name: 'www.example.test',
  type: 'AAAA',
  rcode: 'NOERROR',
  clientIp: '2001:db8::1',
  transport: 'udp',
  dnssecOk: false,
  edns: true,
  ...over,
});

describe('query batches (answering thread to query-log thread)', () => {
  it('decodes every field as encoded, strings sent once per channel', () => {
    const encoder = new QueryBatchEncoder(8);
    const decoder = new QueryBatchDecoder();
    const first = [query(), query({ transport: 'tcp', dnssecOk: true, edns: true, rcode: 'NXDOMAIN', name: 'gone.example.test' }), query({ edns: false, clientIp: '192.0.2.7' })];
    for (const q of first) expect(encoder.record(q)).toBe(true);
    const a = encoder.take()!;
    expect(a.count).toBe(3);
    expect(decoder.decode(a)).toEqual(first);
    // Nothing new in the second batch: no strings travel with it.
    encoder.record(query({ timestamp: 1_700_000_000_001, durationMs: 2.5 }));
    const b = encoder.take()!;
    expect(b.strings).toEqual([]);
    expect(decoder.decode(b)).toEqual([query({ timestamp: 1_700_000_000_001, durationMs: 2.5 })]);
    expect(encoder.take()).toBeNull();
  });

  it('defers decoding: a batch decoded later reads the table it was sent with, even after a reset', () => {
    const encoder = new QueryBatchEncoder(4);
    const decoder = new QueryBatchDecoder();
    const before = [query({ name: 'a.example.test' }), query({ name: 'b.example.test', clientIp: '192.0.2.1' })];
    for (const q of before) encoder.record(q);
    const deferred = decoder.defer(encoder.take()!);
    expect(deferred.count).toBe(2);
    // The channel starts a new table; its next batch renumbers from 0 with other strings.
    encoder.forget();
    const after = [query({ name: 'c.example.test', accountId: '7', domain: 'other.test', clientIp: '198.51.100.9' })];
    for (const q of after) encoder.record(q);
    const next = encoder.take()!;
    expect(next.reset).toBe(true);
    const laterDeferred = decoder.defer(next);
    expect(laterDeferred.decode()).toEqual(after);
    expect(deferred.decode()).toEqual(before);
  });

  it('leaves out queries no account owns, is full at capacity and refuses only beyond its slack', () => {
    const encoder = new QueryBatchEncoder(2);
    expect(encoder.record(query({ accountId: null, domain: null, rcode: 'REFUSED' }))).toBe(false);
    expect(encoder.record(query())).toBe(true);
    expect(encoder.record(query())).toBe(true);
    expect(encoder.full).toBe(true);
    // A UDP batch under way is never cut: the slack takes it past `full`.
    for (let i = 0; i < QueryBatchEncoder.SLACK; i++) expect(encoder.record(query())).toBe(true);
    expect(encoder.record(query())).toBe(false);
    expect(encoder.take()!.count).toBe(2 + QueryBatchEncoder.SLACK);
  });

  it('starts a fresh table on both ends once it is full, so memory stays bounded', () => {
    const encoder = new QueryBatchEncoder(1024);
    const decoder = new QueryBatchDecoder();
    let resets = 0;
    for (let i = 0; i < MAX_TABLE_SIZE + 2048; i++) {
      encoder.record(query({ clientIp: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}` }));
      if (encoder.full) {
        const batch = encoder.take()!;
        if (batch.reset) resets++;
        decoder.decode(batch);
      }
    }
    const last = decoder.decode(encoder.take()!);
    expect(resets).toBe(1);
    const i = MAX_TABLE_SIZE + 2047;
    // Every column after the reset, the ones that repeat from query to query too.
    expect(last.at(-1)).toEqual(query({ clientIp: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}` }));
  });
});

describe('query-log channel backpressure', () => {
  let ports: MessagePort[] = [];
  afterEach(() => {
    for (const p of ports) p.close();
    ports = [];
  });

  const received = (port: MessagePort): QueryBatch[] => {
    const batches: QueryBatch[] = [];
    port.on('message', (m: ChannelMessage) => batches.push(m.batch));
    return batches;
  };

  it('drops and counts whole batches while the log thread is behind, then resumes with a fresh table', async () => {
    const { port1, port2 } = new MessageChannel();
    ports = [port1, port2];
    const control = newControl();
    const channel = new QueryLogChannel(port1, control, { batchSize: 4, maxBacklog: 8, flushIntervalMs: 60_000 });
    const batches = received(port2);
    for (let i = 0; i < 8; i++) channel.record(query({ name: `n${i}.example.test` }));
    expect(Atomics.load(control, BACKLOG)).toBe(8);
    // The log thread has not taken anything: the next full batch is dropped, not queued.
    for (let i = 8; i < 12; i++) channel.record(query({ name: `n${i}.example.test` }));
    expect(Atomics.load(control, DROPPED)).toBe(4);
    expect(Atomics.load(control, BACKLOG)).toBe(8);
    // It catches up; what follows goes through and decodes right despite the lost strings.
    Atomics.store(control, BACKLOG, 0);
    channel.record(query({ name: 'n9.example.test' }));
    channel.flush();
    await new Promise((r) => setTimeout(r, 20));
    expect(batches.map((b) => b.count)).toEqual([4, 4, 1]);
    const decoder = new QueryBatchDecoder();
    const names = batches.flatMap((b) => decoder.decode(b).map((q) => q.name));
    expect(names).toEqual(['n0', 'n1', 'n2', 'n3', 'n4', 'n5', 'n6', 'n7', 'n9'].map((n) => `${n}.example.test`));
    expect(batches[2].reset).toBe(true);
    channel.close();
  });

  it('takes UDP answers as fields, sets their answer time once the batch is sent, and posts only whole UDP batches', async () => {
    const { port1, port2 } = new MessageChannel();
    ports = [port1, port2];
    const channel = new QueryLogChannel(port1, newControl(), { batchSize: 2, flushIntervalMs: 60_000 });
    const batches = received(port2);
    const udp = (q: LoggedQuery) => channel.recordUdp(q.timestamp, q.accountId!, q.domain!, q.name, q.type, q.rcode, q.clientIp, q.dnssecOk, q.edns);
    const first = [query({ name: 'a.example.test' }), query({ name: 'b.example.test', dnssecOk: true }), query({ name: 'c.example.test', edns: false })];
    for (const q of first) udp(q);
    // Full since the second, but the UDP batch's answer time is not known yet: nothing goes.
    channel.flush();
    await new Promise((r) => setTimeout(r, 20));
    expect(batches).toEqual([]);
    channel.udpBatchSent(0.25);
    // A TCP answer after it carries its own time.
    const tcp = query({ name: 'd.example.test', transport: 'tcp', durationMs: 1.5 });
    channel.record(tcp);
    channel.flush();
    await new Promise((r) => setTimeout(r, 20));
    const decoder = new QueryBatchDecoder();
    const decoded = batches.flatMap((b) => decoder.decode(b));
    expect(decoded).toEqual([...first.map((q) => ({ ...q, durationMs: 0.25 })), tcp]);
    expect(batches.map((b) => b.count)).toEqual([3, 1]);
    channel.close();
  });
});
