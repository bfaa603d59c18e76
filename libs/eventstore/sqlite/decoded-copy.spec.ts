import { decodedCopy, NOT_PLAIN } from './decoded-copy';

/** The decoded form an event read back from the store has. */
const viaJson = (v: unknown) => JSON.parse(JSON.stringify(v));

/** Every key in order, at every depth, so that key order is compared too. */
const shape = (v: unknown): unknown =>
  Array.isArray(v)
    ? v.map(shape)
    : v !== null && typeof v === 'object'
      ? Object.keys(v).map((k) => [k, shape((v as Record<string, unknown>)[k])])
      : Object.is(v, -0)
        ? '-0'
        : v;

describe('decodedCopy (decision 0114)', () => {
  it('gives what the JSON round trip gives, key order included, for plain values', () => {
    const values: unknown[] = [
      { domain_id: 7, fqdn: 'h.example.net', addresses: { ipv4: '192.0.2.1', ipv6: null }, source: 'ddns' },
      { version: 1, correlation_id: 'r-1', actor: 'ddns:key:1', account_id: 3, source_ip: '10.0.0.1' },
      { b: 1, a: [1, 1.5, 1e21, -0, true, false, null, 'é', '\ud800'], '2': 'x', '1': { z: [], y: {} } },
      // Members JSON leaves out, array elements it writes as null.
      { kept: 1, gone: undefined, fn: () => 1, sym: Symbol('s'), list: [undefined, () => 1, Symbol('t')] },
      [],
      Object.assign(Object.create(null), { bare: true }),
    ];
    for (const v of values) {
      const copy = decodedCopy(v);
      expect(copy).toEqual(viaJson(v));
      expect(shape(copy)).toEqual(shape(viaJson(v)));
    }
  });

  it('shares nothing with the value it copies', () => {
    const value = { addresses: { ipv4: '192.0.2.1' }, list: [{ n: 1 }] };
    const copy = decodedCopy(value) as typeof value;
    value.addresses.ipv4 = '192.0.2.9';
    value.list[0].n = 2;
    expect(copy).toEqual({ addresses: { ipv4: '192.0.2.1' }, list: [{ n: 1 }] });
  });

  it('declines what JSON writes in a form a copy would not have', () => {
    class Point {
      x = 1;
    }
    const protoKey = JSON.parse('{"__proto__": {"polluted": true}}');
    for (const v of [
      { at: new Date(0) },
      { p: new Point() },
      { n: NaN },
      [Infinity],
      { toJSON: () => 'x' },
      protoKey,
      { big: 1n },
      new Map(),
      Buffer.from('x'),
    ])
      expect(decodedCopy(v)).toBe(NOT_PLAIN);
  });
});
