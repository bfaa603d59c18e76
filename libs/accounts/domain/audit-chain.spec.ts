import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { actorFromCsv, actorToCsv, AuditEntry, canonicalEntry, chained, chainHash } from './audit-chain';

const entry: AuditEntry = {
  id: '0190f0f0-0000-7000-8000-000000000001',
  type: 'RecordsChanged',
  occurred_at: '2026-05-01T00:00:00.000Z',
  stream: 'zone-7',
  revision: 3,
  actor: 'key:6f1c',
  source_ip: '192.0.2.1',
  correlation_id: null,
  // Keys out of order, non-ASCII text, numbers that JSON writes in more than one way elsewhere.
  data: { zone: 'exämple.com', b: [1, 1.5, 1e21, -0], a: { '€': 1, '😀': 2, z: null } },
};

describe('audit chain', () => {
  it('hashes the RFC 8785 form of the entry with prev_hash (written out here by hand)', () => {
    const canonical =
      '{"actor":"key:6f1c","correlation_id":null,"data":{"a":{"z":null,"€":1,"😀":2},"b":[1,1.5,1e+21,0],"zone":"exämple.com"},' +
      '"id":"0190f0f0-0000-7000-8000-000000000001","occurred_at":"2026-05-01T00:00:00.000Z","prev_hash":null,"revision":3,' +
      '"source_ip":"192.0.2.1","stream":"zone-7","type":"RecordsChanged"}';
    expect(chainHash(entry, null)).toBe(createHash('sha256').update(canonical, 'utf8').digest('hex'));
  });

  it('writes the same canonical form as canonicalize of the whole entry, for every shape an entry takes', () => {
    const shapes: [AuditEntry, string | null][] = [
      [entry, null],
      [entry, 'ab'.repeat(32)],
      [{ ...entry, actor: null, source_ip: null, correlation_id: 'c-1', data: null }, null],
      [{ ...entry, data: 'text "quoted" \u2028 \n' }, 'x'],
      [{ ...entry, data: [{ b: 1, a: [true, false, null] }, 0.1, -5e-7] }, null],
      [{ ...entry, data: {}, type: 'Ünïcode\u0000', stream: '' }, null],
      [{ ...entry, revision: 2 ** 53 - 1 }, null],
      // Data as the audit projection meets it (decision 0114: written out, not through the library).
      [
        {
          ...entry,
          data: {
            domain_id: 7,
            account_id: 3,
            fqdn: 'h.example.net',
            addresses: { ipv4: '10.0.0.1', ipv6: null },
            source: 'ddns',
            at: '2026-05-01T00:00:00.000Z',
          },
        },
        'ff',
      ],
      [
        {
          ...entry,
          data: { b: [undefined, Symbol('s'), [], {}], a: undefined, c: Symbol('t'), '10': 1, '9': 2, '': 0 },
        },
        null,
      ],
      [{ ...entry, data: Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${(i * 7) % 40}`, i])) }, null],
      [{ ...entry, data: JSON.parse('{"__proto__": {"x": 1}, "toJSON": "not a function", "\u00e9": "\ud800"}') }, null],
      [{ ...entry, data: Object.assign(Object.create(null), { z: 1, a: [true] }) }, null],
      [{ ...entry, data: 'plain text' }, null],
      [{ ...entry, data: -0 }, null],
      // Outside plain JSON: the library decides (toJSON, a date, a class instance, a function in a member).
      [{ ...entry, data: { at: new Date(0), list: [new Date(1)] } }, null],
      [{ ...entry, data: { toJSON: () => ({ replaced: true }) } }, null],
      [{ ...entry, data: { m: new Map([[1, 2]]), f: () => 1 } }, null],
      // Outside the known shape: the library decides (fields missing are left out).
      [{ ...entry, actor: undefined as unknown as null, data: undefined }, null],
    ];
    for (const [e, prev] of shapes) {
      const { id, type, occurred_at, stream, revision, actor, source_ip, correlation_id, data } = e;
      const whole = {
        id,
        type,
        occurred_at,
        stream,
        revision,
        actor,
        source_ip,
        correlation_id,
        data,
        prev_hash: prev,
      };
      expect(canonicalEntry(e, prev)).toBe(canonicalize(whole));
    }
    expect(() => canonicalEntry({ ...entry, revision: NaN }, null)).toThrow();
  });

  it('writes the form canonicalize gives for data of any nesting and member order (decision 0130: one JSON.stringify of a copy in order)', () => {
    // A seeded generator (the same cases every run): objects whose members come in any order, arrays of them,
    // text with characters JSON escapes, keys that sort apart in UTF-16 and by code point, or look like indexes.
    let seed = 28;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)];
    const keys = ['a', 'b', 'z', 'A', '_', 'ab', '€', '😀', '\uffff', 'é', '', 'x y', '1', '10', '9a', '__proto__'];
    const texts = ['', 'plain', 'q"uote', 'back\\slash', 'line\nbreak', '\u0001', '\u2028', '\ud800', 'é😀'];
    const value = (depth: number): unknown => {
      const kind = depth > 3 ? Math.floor(next() * 4) : Math.floor(next() * 7);
      if (kind === 0) return pick(texts);
      if (kind === 1) return pick([0, -0, 1, -1.5, 1e21, 1e-7, 2 ** 53, 0.1]);
      if (kind === 2) return pick([true, false, null]);
      if (kind === 3) return pick([undefined, 'x']);
      if (kind === 4) return Array.from({ length: Math.floor(next() * 4) }, () => value(depth + 1));
      const object: Record<string, unknown> = {};
      for (let i = Math.floor(next() * 6); i > 0; i--) {
        const key = pick(keys);
        // `__proto__` as JSON.parse makes it: an own member.
        if (key === '__proto__')
          Object.defineProperty(object, key, {
            value: value(depth + 1),
            enumerable: true,
            configurable: true,
            writable: true,
          });
        else object[key] = value(depth + 1);
      }
      return object;
    };
    for (let i = 0; i < 2000; i++) {
      const data = value(0);
      const { id, type, occurred_at, stream, revision, actor, source_ip, correlation_id } = entry;
      const whole = { id, type, occurred_at, stream, revision, actor, source_ip, correlation_id, data, prev_hash: 'p' };
      if (data === undefined) continue;
      expect(canonicalEntry({ ...entry, data }, 'p')).toBe(canonicalize(whole));
    }
  });

  it('links: the hash depends on prev_hash and on every field shown, and on nothing else', () => {
    const first = chained(entry, null);
    const second = chained({ ...entry, id: 'next' }, first.hash);
    expect(second.prev_hash).toBe(first.hash);
    expect(chainHash({ ...entry, id: 'next' }, null)).not.toBe(second.hash);
    expect(chainHash({ ...entry, source_ip: '192.0.2.2' }, null)).not.toBe(first.hash);
    // A document's other fields (account, position, its own hashes) are not part of the entry.
    expect(chainHash({ ...entry, account_id: 7, position: 9, hash: 'x' } as AuditEntry, null)).toBe(first.hash);
  });

  it('splits the actor into the CSV columns and back', () => {
    for (const [actor, columns] of [
      ['user:7', { actor_type: 'user', actor_id: '7' }],
      ['key:6f1c-aa', { actor_type: 'api_key', actor_id: '6f1c-aa' }],
      ['system', { actor_type: 'system', actor_id: '' }],
      ['system:dmarc-nightly', { actor_type: 'system', actor_id: 'dmarc-nightly' }],
      ['ddns:12', { actor_type: 'ddns', actor_id: '12' }],
      [null, { actor_type: '', actor_id: '' }],
    ] as const) {
      expect(actorToCsv(actor)).toEqual(columns);
      expect(actorFromCsv(columns.actor_type, columns.actor_id)).toBe(actor);
    }
  });
});
