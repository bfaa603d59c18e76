import * as dnsPacket from 'dns-packet';
import { ResponseCache, type ResponseFacts } from './response-cache';

const FACTS: ResponseFacts = {
  name: 'www.example.com',
  type: 'A',
  rcode: 0,
  truncated: false,
  zone: 'example.com',
  domain: 'example.com',
  accountId: 'acct-1',
};

function query(
  name: string,
  opts: { id?: number; edns?: number; dnssec?: boolean; type?: dnsPacket.RecordType } = {},
): Buffer {
  const additionals: dnsPacket.Answer[] =
    opts.edns === undefined
      ? []
      : [
          {
            type: 'OPT',
            name: '.',
            udpPayloadSize: opts.edns,
            flags: opts.dnssec ? dnsPacket.DNSSEC_OK : 0,
          } as dnsPacket.Answer,
        ];
  return dnsPacket.encode({
    type: 'query',
    id: opts.id ?? 1,
    flags: dnsPacket.RECURSION_DESIRED,
    questions: [{ name, type: opts.type ?? 'A' }],
    additionals,
  });
}

/** A response to `q`: the question echoed, one A record (its owner in lowercase, as the index holds it). */
function response(q: Buffer): Buffer {
  const decoded = dnsPacket.decode(q);
  return dnsPacket.encode({
    type: 'response',
    id: decoded.id,
    flags: (decoded.flags ?? 0) | dnsPacket.AUTHORITATIVE_ANSWER,
    questions: decoded.questions,
    answers: [{ type: 'A', name: decoded.questions![0].name.toLowerCase(), ttl: 300, data: '192.0.2.10' }],
  });
}

/** Looks `q` up where the batch listener has it: inside a larger buffer, at an offset. */
function look(cache: ResponseCache, q: Buffer, version: number) {
  const buf = Buffer.alloc(q.length + 100, 0xff);
  q.copy(buf, 37);
  return cache.lookup(buf, 37, q.length, version);
}

describe('ResponseCache', () => {
  it('stores after a miss and answers the same question with the ID, RD and case of the new query', () => {
    const cache = new ResponseCache();
    const first = query('www.example.com', { id: 7 });
    expect(look(cache, first, 0)).toBeNull();
    expect(cache.plain).toBe(true);
    cache.store(response(first), FACTS);

    const second = query('WWW.Example.COM', { id: 9 });
    const hit = look(cache, second, 0)!;
    expect(hit).not.toBeNull();
    expect(hit.accountId).toBe('acct-1');
    const out = Buffer.alloc(1232, 0xee);
    const length = cache.write(hit, second, 0, out, 5);
    expect(out.subarray(5, 5 + length)).toEqual(response(second));
  });

  it('keeps types and EDNS variants apart', () => {
    const cache = new ResponseCache();
    const a = query('www.example.com');
    look(cache, a, 0);
    cache.store(response(a), FACTS);
    expect(look(cache, query('www.example.com', { type: 'AAAA' }), 0)).toBeNull();
    expect(look(cache, query('www.example.com', { edns: 1232 }), 0)).toBeNull();
    expect(cache.edns).toBe(true);
    expect(cache.udpSize).toBe(1232);
    expect(look(cache, query('www.example.com', { edns: 1232, dnssec: true }), 0)).toBeNull();
    expect(cache.dnssecOk).toBe(true);
    expect(look(cache, query('www.example.com'), 0)).not.toBeNull();
  });

  it('empties itself when the index version moves', () => {
    const cache = new ResponseCache();
    const q = query('www.example.com');
    look(cache, q, 3);
    cache.store(response(q), FACTS);
    expect(look(cache, q, 3)).not.toBeNull();
    expect(look(cache, q, 4)).toBeNull();
    expect(cache.count).toBe(0);
  });

  it('stays within its size: a flood of new names refills it', () => {
    const cache = new ResponseCache(100);
    for (let i = 0; i < 250; i++) {
      const q = query(`n${i}.example.com`);
      expect(look(cache, q, 0)).toBeNull();
      cache.store(response(q), FACTS);
      expect(cache.count).toBeLessThanOrEqual(100);
    }
    expect(look(cache, query('n249.example.com'), 0)).not.toBeNull();
  });

  it('keeps a hot question through a flood of new ones', () => {
    const cache = new ResponseCache(100);
    const hot = query('hot.example.com');
    look(cache, hot, 0);
    cache.store(response(hot), FACTS);
    for (let i = 0; i < 1000; i++) {
      const q = query(`flood${i}.example.com`);
      look(cache, q, 0);
      cache.store(response(q), FACTS);
      if (i % 20 === 0) expect(look(cache, hot, 0)).not.toBeNull();
    }
  });

  it('bounds the bytes kept as well as the count', () => {
    const size = response(query('n0.example.com')).length;
    const cache = new ResponseCache(10_000, 20 * size);
    for (let i = 0; i < 500; i++) {
      const q = query(`n${i}.example.com`);
      look(cache, q, 0);
      cache.store(response(q), FACTS);
      expect(cache.count).toBeLessThanOrEqual(22);
    }
    const again = query('n499.example.com', { id: 4 });
    const out = Buffer.alloc(1232);
    expect(out.subarray(0, cache.write(look(cache, again, 0)!, again, 0, out, 0))).toEqual(response(again));
  });

  it('answers from the older generation, and again once moved back, with the bytes of that question', () => {
    const cache = new ResponseCache(8);
    const names = ['a', 'b', 'c', 'd', 'e'].map((n) => `${n}.example.com`);
    for (const name of names) {
      const q = query(name);
      look(cache, q, 0);
      cache.store(response(q), FACTS);
    }
    // 'a' to 'd' filled `recent` (half of 8) and moved to `older` when 'e' came.
    for (let round = 0; round < 2; round++) {
      for (const [i, name] of names.entries()) {
        const again = query(name.toUpperCase(), { id: 100 + i });
        const out = Buffer.alloc(1232);
        expect(out.subarray(0, cache.write(look(cache, again, 0)!, again, 0, out, 0))).toEqual(response(again));
      }
    }
  });

  it('writes whole words into an aligned buffer without touching the next response', () => {
    const cache = new ResponseCache();
    const q = query('odd-length.example.com', { edns: 1232 });
    look(cache, q, 0);
    cache.store(response(q), FACTS);
    const again = query('Odd-Length.example.com', { id: 3, edns: 1232 });
    const expected = response(again);
    expect(expected.length % 4).not.toBe(0);
    // Two responses' room side by side, as the batch listener's send buffer has them.
    const out = Buffer.alloc(2 * 1232, 0xee);
    const length = cache.write(look(cache, again, 0)!, again, 0, out, 0);
    expect(out.subarray(0, length)).toEqual(expected);
    expect(out.subarray(1232).every((b) => b === 0xee)).toBe(true);
  });

  it.each([
    ['a response', (q: Buffer) => (q[2] |= 0x80)],
    ['another opcode', (q: Buffer) => (q[2] |= 0x10)],
    ['two questions', (q: Buffer) => (q[5] = 2)],
    ['an answer record', (q: Buffer) => (q[7] = 1)],
    ['a compressed name', (q: Buffer) => (q[12] = 0xc0)],
    ['a truncated name', (q: Buffer) => q.subarray(0, 16)],
    ['trailing bytes', (q: Buffer) => Buffer.concat([q, Buffer.from([0])])],
  ])('does not take %s', (_what, mutate) => {
    const cache = new ResponseCache();
    const q = query('www.example.com');
    const changed = mutate(q);
    expect(look(cache, Buffer.isBuffer(changed) ? changed : q, 0)).toBeNull();
    expect(cache.plain).toBe(false);
  });

  it('does not take EDNS versions other than 0 or an OPT with trailing data', () => {
    const cache = new ResponseCache();
    const v1 = query('www.example.com', { edns: 1232 });
    v1[v1.length - 5] = 1; // the OPT TTL's version byte
    expect(look(cache, v1, 0)).toBeNull();
    expect(cache.plain).toBe(false);
    const long = Buffer.concat([query('www.example.com', { edns: 1232 }), Buffer.from([0, 0])]);
    expect(look(cache, long, 0)).toBeNull();
    expect(cache.plain).toBe(false);
  });
});
