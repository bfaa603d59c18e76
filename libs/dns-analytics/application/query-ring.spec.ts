import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { MAX_TABLE_SIZE, type DeferredColumns, type LoggedQuery } from './query-batch';
import { deliveredRows } from './delivered-rows';
import { DROPPED, newControl, QueryLogChannel } from './query-log-channel';
import type { LoggedAnswer, LoggedNameSlot } from '../../dns-server';
import {
  closeRing,
  HEAD,
  MAX_STRING_LENGTH,
  NAME_NUMBERS,
  TAIL,
  newQueryRing,
  QueryRingReader,
  ringBacklog,
  WireStrings,
  type QueryRing,
} from './query-ring';

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

/** An answering thread's channel and the log thread's reader of its ring. */
function pipe(bytes = 64 * 1024, strings = new WireStrings()) {
  const ring = newQueryRing(bytes);
  const control = newControl();
  const channel = new QueryLogChannel({ ring, control });
  const reader = new QueryRingReader(ring, strings);
  const drained: DeferredColumns[] = [];
  const drain = (): LoggedQuery[] => {
    strings.renewIfFull();
    const chunk = reader.drain();
    if (!chunk) return [];
    drained.push(chunk);
    return chunk.decode();
  };
  const udp = (q: LoggedQuery, nameSlot?: LoggedNameSlot) =>
    channel.recordUdp(
      q.timestamp,
      q.accountId!,
      q.domain!,
      q.name,
      q.type,
      q.rcode,
      q.clientIp,
      q.dnssecOk,
      q.edns,
      nameSlot,
    );
  return { ring, control, channel, reader, drain, udp, drained, dropped: () => Atomics.load(control, DROPPED) };
}

/** A cached answer as the response cache keeps it, not yet numbered by the log. */
const cachedAnswer = (over: Partial<LoggedAnswer>): LoggedAnswer => ({
  accountId: '42',
  domain: 'example.test',
  name: 'www.example.test',
  type: 'A',
  rcode: 0,
  logNameId: -1,
  logNameEpoch: 0,
  ...over,
});
describe('query ring (answering thread to query-log thread)', () => {
  it('carries every field, repeated strings and non-ASCII ones included', () => {
    const p = pipe();
    const sent = [
      query(),
      query({ transport: 'tcp', dnssecOk: true, rcode: 'NXDOMAIN', name: 'gone.example.test', durationMs: 1.5 }),
      query({ edns: false, clientIp: '192.0.2.7', timestamp: 1_700_000_000_001.125 }),
      query({ domain: 'bücher.test', name: 'wörter.bücher.test', accountId: '7' }),
      query({ type: 'TXT' }),
    ];
    for (const q of sent) p.channel.record(q);
    expect(p.drain()).toEqual(sent);
    expect(p.drain()).toEqual([]);
  });

  describe('names of cached responses, numbered', () => {
    const slot = (): LoggedNameSlot => ({ logNameId: -1, logNameEpoch: 0 });
    const udpBatch = (p: ReturnType<typeof pipe>, queries: Array<[LoggedQuery, LoggedNameSlot | undefined]>) => {
      for (const [q, s] of queries) p.udp(q, s);
      p.channel.udpBatchSent(0);
    };
    const named = (name: string) => query({ name, durationMs: 0 });

    it('send a name once, then its number, interleaved with names sent as bytes', () => {
      const p = pipe();
      const [a, b] = [slot(), slot()];
      udpBatch(p, [
        [named('a.example.test'), a],
        [named('b.example.test'), b],
        [named('a.example.test'), a],
        [named('c.example.test'), undefined],
        [named('a.example.test'), a],
        [named('a.example.test'), undefined],
        [named('b.example.test'), b],
      ]);
      const headBefore = Atomics.load(p.ring.control, HEAD);
      udpBatch(p, [[named('a.example.test'), a]]);
      // A numbered name's record holds no string: the header alone (8 bytes), after its batch's mark (24).
      expect(Atomics.load(p.ring.control, HEAD) - headBefore).toBe(24 + 8);
      const headThen = Atomics.load(p.ring.control, HEAD);
      udpBatch(p, [
        [named('a.example.test'), a],
        [named('b.example.test'), b],
        [named('a.example.test'), a],
      ]);
      // One mark per batch: its queries hold neither time.
      expect(Atomics.load(p.ring.control, HEAD) - headThen).toBe(24 + 3 * 8);
      expect(p.drain().map((q) => q.name)).toEqual(
        ['a', 'b', 'a', 'c', 'a', 'a', 'b', 'a', 'a', 'b', 'a'].map((n) => `${n}.example.test`),
      );
      expect(a.logNameId).not.toBe(b.logNameId);
    });

    it('send the whole answer (account to rcode) by its number, whatever the records between sent', () => {
      const p = pipe();
      const [a, b] = [slot(), slot()];
      const answerA = query({ name: 'a.example.test', type: 'A', rcode: 'NOERROR', durationMs: 0 });
      const answerB = query({
        accountId: '7',
        domain: 'b.test',
        name: 'b.test',
        type: 'TXT',
        rcode: 'NXDOMAIN',
        clientIp: '192.0.2.1',
        durationMs: 0,
      });
      const other = query({ domain: 'c.test', name: 'x.c.test', type: 'MX', rcode: 'SERVFAIL', durationMs: 0 });
      udpBatch(p, [
        [answerA, a],
        [answerB, b],
        [other, undefined],
        [answerA, a],
        [{ ...answerA, clientIp: '192.0.2.1' }, a],
        [answerB, b],
        [other, undefined],
        [answerB, b],
        [answerA, a],
      ]);
      expect(p.drain()).toEqual([
        answerA,
        answerB,
        other,
        answerA,
        { ...answerA, clientIp: '192.0.2.1' },
        answerB,
        other,
        answerB,
        answerA,
      ]);
    });

    it('take cached responses as they are: numbered on first sight, by number after, strings sent again only when needed', () => {
      const p = pipe();
      const a = cachedAnswer({});
      const nx = cachedAnswer({ accountId: '7', domain: 'b.test', name: 'missing.b.test', type: 'TXT', rcode: 3 });
      const fromA = (clientIp: string) =>
        query({ type: 'A', rcode: 'NOERROR', name: 'www.example.test', clientIp, durationMs: 0 });
      const fromNx = (clientIp: string) =>
        query({
          accountId: '7',
          domain: 'b.test',
          name: 'missing.b.test',
          type: 'TXT',
          rcode: 'NXDOMAIN',
          clientIp,
          durationMs: 0,
        });
      const other = query({ domain: 'c.test', name: 'x.c.test', type: 'MX', durationMs: 0 });
      const cachedUdp = (answer: LoggedAnswer, clientIp: string) =>
        p.channel.recordCachedUdp(1_700_000_000_000.25, answer, clientIp, false, true);
      cachedUdp(a, '192.0.2.1');
      cachedUdp(nx, '192.0.2.1');
      p.channel.udpBatchSent(0);
      const head = Atomics.load(p.ring.control, HEAD);
      cachedUdp(a, '192.0.2.1');
      p.channel.udpBatchSent(0);
      // By number, the same client: the header alone, after its batch's mark (24).
      expect(Atomics.load(p.ring.control, HEAD) - head).toBe(24 + 8);
      cachedUdp(a, '192.0.2.2');
      p.udp(other);
      p.udp({ ...other, name: 'y.c.test' });
      cachedUdp(nx, '192.0.2.2');
      p.udp(other);
      cachedUdp(a, '192.0.2.2');
      p.channel.udpBatchSent(0);
      expect(p.drain()).toEqual([
        fromA('192.0.2.1'),
        fromNx('192.0.2.1'),
        fromA('192.0.2.1'),
        fromA('192.0.2.2'),
        other,
        { ...other, name: 'y.c.test' },
        fromNx('192.0.2.2'),
        other,
        fromA('192.0.2.2'),
      ]);
    });

    it('take a cached response by its number alone (the UDP hit cache), and refuse a number of another epoch', () => {
      const p = pipe();
      const a = cachedAnswer({});
      const fromA = (clientIp: string, dnssecOk: boolean) =>
        query({ type: 'A', rcode: 'NOERROR', name: 'www.example.test', clientIp, dnssecOk, durationMs: 0 });
      const at = 1_700_000_000_000.25;
      // Not numbered yet: nothing written, the caller logs the answer itself.
      expect(p.channel.recordCachedUdpByNumber(at, a.logNameId, a.logNameEpoch, '192.0.2.1', false, true)).toBe(false);
      p.channel.recordCachedUdp(at, a, '192.0.2.1', false, true);
      const { logNameId, logNameEpoch } = a;
      expect(p.channel.recordCachedUdpByNumber(at, logNameId, logNameEpoch, '192.0.2.2', true, true)).toBe(true);
      expect(p.channel.recordCachedUdpByNumber(at, logNameId, logNameEpoch + 1, '192.0.2.2', false, true)).toBe(false);
      p.channel.udpBatchSent(0);
      expect(p.drain()).toEqual([fromA('192.0.2.1', false), fromA('192.0.2.2', true)]);
    });

    it('number names afresh after NAME_NUMBERS of them, and never number a name whose record was dropped', () => {
      const p = pipe(4 * 1024 * 1024);
      const slots = Array.from({ length: NAME_NUMBERS + 10 }, slot);
      const first = slots[0];
      udpBatch(p, [[named('n0.example.test'), first]]);
      const epoch = first.logNameEpoch;
      for (let i = 1; i < slots.length; i += 10_000) {
        udpBatch(
          p,
          slots.slice(i, i + 10_000).map((s, k) => [named(`n${i + k}.example.test`), s]),
        );
        p.drain();
      }
      // The numbering started again: the first name is sent as bytes once more, with a new number.
      expect(slots[slots.length - 1].logNameEpoch).not.toBe(epoch);
      udpBatch(p, [
        [named('n0.example.test'), first],
        [named('n1.example.test'), slots[1]],
        [named(`n${slots.length - 1}.example.test`), slots[slots.length - 1]],
      ]);
      expect(first.logNameEpoch).not.toBe(epoch);
      expect(p.drain().map((q) => q.name)).toEqual([
        'n0.example.test',
        'n1.example.test',
        `n${slots.length - 1}.example.test`,
      ]);

      // A full ring drops the record: the name stays unnumbered and goes as bytes next time.
      const small = pipe(1024);
      const full = slot();
      for (let i = 0; i < 40; i++) small.udp(named(`filler-${i}.example.test`));
      small.udp(named('late.example.test'), full);
      small.channel.udpBatchSent(0);
      expect(small.dropped()).toBeGreaterThan(0);
      expect(full.logNameId).toBe(-1);
      small.drain();
      udpBatch(small, [
        [named('late.example.test'), full],
        [named('late.example.test'), full],
      ]);
      expect(small.drain().map((q) => q.name)).toEqual(['late.example.test', 'late.example.test']);
    });

    it('find a numbered answer again by its texts once the string table started afresh', () => {
      const strings = new WireStrings();
      const p = pipe(64 * 1024, strings);
      const a = slot();
      udpBatch(p, [[named('a.example.test'), a]]);
      expect(p.drain().map((q) => q.name)).toEqual(['a.example.test']);
      while (strings.table.length < MAX_TABLE_SIZE) strings.table.push('');
      udpBatch(p, [
        [query({ name: 'b.example.test', domain: 'other.test', type: 'TXT', durationMs: 0 }), undefined],
        [named('a.example.test'), a],
        [query({ name: 'a.example.test', clientIp: '192.0.2.9', durationMs: 0 }), a],
      ]);
      const after = p.drain();
      expect(after.map((q) => [q.name, q.domain, q.type, q.clientIp])).toEqual([
        ['b.example.test', 'other.test', 'TXT', '2001:db8::1'],
        ['a.example.test', 'example.test', 'AAAA', '2001:db8::1'],
        ['a.example.test', 'example.test', 'AAAA', '192.0.2.9'],
      ]);
      expect(p.drained[p.drained.length - 1].table).toBe(strings.table);
      expect(strings.table.length).toBeLessThan(12);
    });
  });

  it('numbers a string once, whether it came as text (carried into a fresh table) or as bytes', () => {
    const strings = new WireStrings();
    const bytes = (s: string) => Buffer.from(s, 'utf8');
    for (const s of ['a.example.test', 'bücher.test']) {
      const b = bytes(s);
      const utf8 = b.length !== s.length;
      const asText = strings.idOf(s);
      expect(strings.idOfBytes(b, 0, b.length, utf8)).toBe(asText);
    }
    const b = bytes('c.example.test');
    const asBytes = strings.idOfBytes(b, 0, b.length, false);
    expect(strings.idOf('c.example.test')).toBe(asBytes);
    expect(strings.table).toEqual(['a.example.test', 'bücher.test', 'c.example.test']);
  });

  it('leaves out queries no account owns', () => {
    const p = pipe();
    p.channel.record(query({ accountId: null, domain: null, rcode: 'REFUSED' }));
    p.channel.record(query());
    expect(p.drain()).toEqual([query()]);
  });

  it('shows a UDP batch only once it is sent, every answer with the batch answer time', () => {
    const p = pipe();
    const batch = [
      query({ name: 'a.example.test' }),
      query({ name: 'b.example.test', dnssecOk: true }),
      query({ name: 'c.example.test', edns: false }),
    ];
    for (const q of batch) p.udp(q);
    expect(p.drain()).toEqual([]);
    expect(ringBacklog(p.ring)).toBe(0);
    p.channel.udpBatchSent(0.25);
    expect(ringBacklog(p.ring)).toBe(3);
    const tcp = query({ name: 'd.example.test', transport: 'tcp', durationMs: 1.5 });
    p.channel.record(tcp);
    expect(p.drain()).toEqual([...batch.map((q) => ({ ...q, durationMs: 0.25 })), tcp]);
    expect(ringBacklog(p.ring)).toBe(0);
  });

  it('keeps each time of a UDP batch whose queries came with different times, all with the batch answer time', () => {
    const p = pipe();
    // More times than the writer first keeps marks for (4): each its own mark.
    const batch = Array.from({ length: 7 }, (_, i) =>
      query({ timestamp: 1_700_000_000_000 + (i >> 1), name: `t${i}.example.test` }),
    );
    for (const q of batch) p.udp(q);
    p.channel.udpBatchSent(0.5);
    expect(p.drain()).toEqual(batch.map((q) => ({ ...q, durationMs: 0.5 })));
  });

  it('wraps around the end of the ring, records never split, over many rounds', () => {
    // 1 KiB holds about 8 of these one-query batches (a mark and a record each, up to ~110 bytes, and the
    // writer reserves room for the worst case of UTF-8): every few drains a record meets the end.
    const p = pipe(1024);
    const received: LoggedQuery[] = [];
    const sent: LoggedQuery[] = [];
    for (let i = 0; i < 2000; i++) {
      const q = query({
        name: `n${i}.${'x'.repeat(i % 37)}.example.test`,
        timestamp: 1_700_000_000_000 + i,
        type: i % 3 ? 'A' : 'TXT',
        clientIp: `10.0.0.${i % 5}`,
      });
      p.udp(q);
      p.channel.udpBatchSent(i / 1000);
      sent.push({ ...q, durationMs: i / 1000 });
      if (i % 5 === 4) received.push(...p.drain());
    }
    received.push(...p.drain());
    expect(p.dropped()).toBe(0);
    expect(received).toEqual(sent);
  });

  it('keeps going when its 32-bit byte counters wrap (every 2 GiB written: minutes at full speed)', () => {
    const ring = newQueryRing(1024);
    // A ring that has already carried almost 2^31 bytes.
    const nearWrap = 2 ** 31 - 8 * 50;
    Atomics.store(ring.control, HEAD, nearWrap | 0);
    Atomics.store(ring.control, TAIL, nearWrap | 0);
    const control = newControl();
    const channel = new QueryLogChannel({ ring, control });
    const reader = new QueryRingReader(ring, new WireStrings());
    const sent: LoggedQuery[] = [];
    const received: LoggedQuery[] = [];
    for (let i = 0; i < 300; i++) {
      const q = query({ name: `w${i}.example.test`, timestamp: i });
      channel.record(q);
      sent.push(q);
      if (i % 5 === 4) received.push(...(reader.drain()?.decode() ?? []));
    }
    received.push(...(reader.drain()?.decode() ?? []));
    expect(Atomics.load(ring.control, HEAD)).toBeLessThan(0);
    expect(Atomics.load(control, DROPPED)).toBe(0);
    expect(received).toEqual(sent);
  });

  it('drops and counts when full, never blocks, and resumes with the right strings once drained', () => {
    const p = pipe(1024);
    const sent: LoggedQuery[] = [];
    let refused = 0;
    for (let i = 0; i < 100; i++) {
      const q = query({ name: `n${i}.example.test`, clientIp: `192.0.2.${i}` });
      p.channel.record(q);
      if (ringBacklog(p.ring) > sent.length) sent.push(q);
      else refused++;
    }
    expect(refused).toBeGreaterThan(50);
    expect(p.dropped()).toBe(refused);
    expect(p.drain()).toEqual(sent);
    // The last query that got in set the repeated columns; dropped ones changed nothing.
    const after = query({ name: `n${sent.length - 1}.example.test`, clientIp: `192.0.2.${sent.length - 1}` });
    p.channel.record(after);
    p.channel.record(query({ name: 'next.example.test', clientIp: sent[0].clientIp }));
    expect(p.drain()).toEqual([after, query({ name: 'next.example.test', clientIp: sent[0].clientIp })]);
  });

  it('drops a query with a string beyond the length it carries', () => {
    const p = pipe();
    p.channel.record(query({ name: 'x'.repeat(MAX_STRING_LENGTH + 1) }));
    p.channel.record(query());
    expect(p.dropped()).toBe(1);
    expect(p.drain()).toEqual([query()]);
  });

  it('renews the string table once full: earlier chunks keep theirs, repeated strings carry over', () => {
    const strings = new WireStrings();
    const p = pipe(4 * 1024 * 1024, strings);
    const first = strings.table;
    const chunkSize = 1000;
    let sent = 0;
    while (strings.table === first || sent < MAX_TABLE_SIZE + chunkSize) {
      for (let i = 0; i < chunkSize; i++, sent++) p.channel.record(query({ name: `n${sent}.example.test` }));
      p.drain();
      if (sent > 3 * MAX_TABLE_SIZE) throw new Error('the table never renewed');
    }
    expect(strings.table.length).toBeLessThan(MAX_TABLE_SIZE);
    // Account, domain, type, rcode and client were last sent before the renewal.
    p.channel.record(query({ name: 'after.example.test' }));
    expect(p.drain()).toEqual([query({ name: 'after.example.test' })]);
    const all = p.drained.flatMap((c) => c.decode());
    expect(all).toHaveLength(sent + 1);
    expect(all.slice(0, 3).map((q) => q.name)).toEqual(['n0.example.test', 'n1.example.test', 'n2.example.test']);
    expect(
      all.every(
        (q, i) => q.name === (i < sent ? `n${i}.example.test` : 'after.example.test') && q.clientIp === '2001:db8::1',
      ),
    ).toBe(true);
  });

  it('drains into a buffer handed back by an earlier chunk, reading none of its stale rows', () => {
    const p = pipe();
    const first = [query(), query({ name: 'a.example.test' }), query({ name: 'b.example.test', type: 'TXT' })];
    for (const q of first) p.channel.record(q);
    const chunk = p.reader.drain()!;
    const enricher = { ready: async () => undefined, lookup: () => ({ country: 'NL', asn: 'AS1', asOrg: 'Org' }) };
    const [rows] = deliveredRows([chunk], enricher);
    expect(Array.from({ length: rows.count }, (_, i) => rows.row(i).qname)).toEqual(first.map((q) => q.name));
    // The writer has copied the chunk: its buffer serves the next drain, which holds only the new queries.
    const second = [query({ name: 'c.example.test', rcode: 'NXDOMAIN' })];
    for (const q of second) p.channel.record(q);
    const next = p.reader.drain()!;
    expect(next.buffer).toBe(chunk.buffer);
    expect(next.decode()).toEqual(second);
    // The next delivery's rows reuse the first's columns: they hold its queries only.
    const [again] = deliveredRows([next], enricher);
    expect(again).toBe(rows);
    expect(Array.from({ length: again.count }, (_, i) => again.row(i))).toEqual([
      expect.objectContaining({ qname: 'c.example.test', rcode: 'NXDOMAIN', country: 'NL', accountId: 42 }),
    ]);
  });

  it("puts a delivery's rows in order of receipt across rings, each ring's chunks drained in turns", () => {
    const strings = new WireStrings();
    const [a, b] = [pipe(64 * 1024, strings), pipe(64 * 1024, strings)];
    const drained: DeferredColumns[] = [];
    // Two answering threads, their batches interleaved in time, drained alternately: a, b, a, b.
    for (let turn = 0; turn < 4; turn++)
      for (const [k, p] of [a, b].entries()) {
        for (let i = 0; i < 3; i++)
          p.udp(query({ timestamp: 1000 + 10 * turn + 2 * i + k, name: `q${turn}.${k}.${i}.test` }));
        p.channel.udpBatchSent(0.1);
        drained.push(p.reader.drain()!);
      }
    const enricher = { ready: async () => undefined, lookup: () => ({ country: '', asn: '', asOrg: '' }) };
    const [rows] = deliveredRows(drained, enricher);
    const ts = Array.from({ length: rows.count }, (_, i) => rows.ts[i]);
    expect(ts).toEqual([...ts].sort((x, y) => x - y));
    expect(rows.count).toBe(24);
  });

  it('forgets nothing of a closed ring before it is drained', () => {
    const p = pipe();
    p.channel.record(query());
    p.channel.close();
    expect(p.reader.finished).toBe(false);
    expect(p.drain()).toEqual([query()]);
    expect(p.reader.finished).toBe(true);
  });
});

/**
 * A producing thread: loads query-ring.ts and its channel through TypeScript's transpiler
 * (jest's transform does not reach worker threads) and writes `count` queries into the ring.
 */
const PRODUCER = `
const { workerData, parentPort } = require('node:worker_threads');
const fs = require('node:fs');
const ts = require('typescript');
require.extensions['.ts'] = (m, file) => m._compile(ts.transpileModule(fs.readFileSync(file, 'utf8'), { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 } }).outputText, file);
const { QueryLogChannel } = require(workerData.channelModule);
const channel = new QueryLogChannel({ ring: workerData.ring, control: workerData.control });
for (let i = 0; i < workerData.count; i++) {
  channel.recordUdp(i, 'acct' + workerData.id, 'd' + workerData.id + '.test', 'q' + i + '.d' + workerData.id + '.test', i % 2 ? 'A' : 'AAAA', 'NOERROR', '10.0.' + workerData.id + '.' + (i % 3), false, true);
  if (i % 16 === 15 || i === workerData.count - 1) channel.udpBatchSent(workerData.id);
}
parentPort.postMessage('done');
`;

describe('query rings with several answering threads', () => {
  it('takes every query of concurrent producers, each ring in its own order, while draining as they write', async () => {
    const strings = new WireStrings();
    const count = 50_000;
    const control = newControl();
    const rings: QueryRing[] = [newQueryRing(64 * 1024), newQueryRing(64 * 1024)];
    const readers = rings.map((ring) => new QueryRingReader(ring, strings));
    const received: LoggedQuery[][] = rings.map(() => []);
    let producing = rings.length;
    const workers = rings.map(
      (ring, id) =>
        new Promise<void>((resolve, reject) => {
          const w = new Worker(PRODUCER, {
            eval: true,
            workerData: { ring, control, id, count, channelModule: join(__dirname, 'query-log-channel.ts') },
          });
          w.once('message', () => {
            closeRing(ring);
            producing--;
            resolve();
          });
          w.once('error', reject);
        }),
    );
    const drainAll = () => {
      strings.renewIfFull();
      readers.forEach((r, i) => received[i].push(...(r.drain()?.decode() ?? [])));
    };
    // Drained on a timer as the log thread does; small rings, so producers may fill them.
    while (producing > 0) {
      drainAll();
      await new Promise((r) => setTimeout(r, 1));
    }
    await Promise.all(workers);
    drainAll();
    expect(readers.every((r) => r.finished)).toBe(true);
    const dropped = Atomics.load(control, DROPPED);
    expect(received[0].length + received[1].length + dropped).toBe(2 * count);
    for (const [id, rows] of received.entries()) {
      let previous = -1;
      for (const q of rows) {
        // Each ring in its producer's order; every field of the query its producer wrote.
        expect(q.timestamp).toBeGreaterThan(previous);
        previous = q.timestamp;
        const i = q.timestamp;
        expect(q).toEqual({
          timestamp: i,
          durationMs: id,
          accountId: `acct${id}`,
          domain: `d${id}.test`,
          name: `q${i}.d${id}.test`,
          type: i % 2 ? 'A' : 'AAAA',
          rcode: 'NOERROR',
          clientIp: `10.0.${id}.${i % 3}`,
          transport: 'udp',
          dnssecOk: false,
          edns: true,
        });
      }
    }
  }, 60_000);
});
