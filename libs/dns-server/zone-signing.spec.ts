import { ZoneIndex } from './zone-index';
import { canonicalCompare } from './zone-signing';
import { wireKey } from './names';
import { generateKey } from '../dnssec/keys';
import { zoneSigning } from '../dnssec/zone-signing';
import { servedKey } from '../dnssec/testing/served-key';

const sortNames = (names: string[]) =>
  names
    .map(wireKey)
    .sort(canonicalCompare)
    .map((k) => names.find((n) => wireKey(n) === k));

/** A zone of 300 names: more than one signing slice (256). */
function zoneOf300Hosts(name: string): ZoneIndex {
  const index = new ZoneIndex();
  index.putZone({
    name,
    ownerAccountId: null,
    soa: { mname: `ns.${name}`, rname: `h.${name}`, serial: 1, refresh: 1, retry: 1, expire: 1, minimum: 60 },
    ttl: 3600,
    nameservers: ['ns.example.net'],
  });
  for (let i = 0; i < 300; i++) index.setRRset(name, `h${i}`, 'A', 60, ['192.0.2.1']);
  return index;
}

describe('zone signing in the index', () => {
  it('orders names canonically (RFC 4034 §6.1)', () => {
    // The RFC's own example, lowercased (the index keeps names so).
    const expected = [
      'example',
      'a.example',
      'yljkjljk.a.example',
      'z.a.example',
      'zabc.a.example',
      'z.example',
      '*.z.example',
    ];
    expect(sortNames([...expected].reverse())).toEqual(expected);
    expect(sortNames(['b.example', 'example', 'a.b.example', 'ab.example'])).toEqual([
      'example',
      'ab.example',
      'b.example',
      'a.b.example',
    ]);
  });

  it('keeps the NSEC chain whole through adds and removes, and strips everything when unsigned', async () => {
    const index = new ZoneIndex();
    index.putZone({
      name: 'chain.test',
      ownerAccountId: null,
      soa: { mname: 'ns.chain.test', rname: 'h.chain.test', serial: 1, refresh: 1, retry: 1, expire: 1, minimum: 60 },
      ttl: 3600,
      nameservers: ['ns.example.net'],
    });
    const key = generateKey(13);
    const signer = servedKey(key);
    await index.setSigning(
      'chain.test',
      zoneSigning('chain.test', [signer], { inception: 0, expiration: 2 ** 31 }, { kind: 'none' }, 3600),
    );
    const next = (name: string) =>
      index.lookup(name, 'NSEC').answers.find((a) => a.type === 'NSEC')?.data as { nextDomain: string } | undefined;
    expect(next('chain.test')?.nextDomain).toBe('chain.test');
    index.setRRset('chain.test', 'b', 'A', 60, ['192.0.2.2']);
    index.setRRset('chain.test', 'a', 'A', 60, ['192.0.2.1']);
    index.setRRset('chain.test', 'c', 'A', 60, ['192.0.2.3']);
    expect([
      next('chain.test')?.nextDomain,
      next('a.chain.test')?.nextDomain,
      next('b.chain.test')?.nextDomain,
      next('c.chain.test')?.nextDomain,
    ]).toEqual(['a.chain.test', 'b.chain.test', 'c.chain.test', 'chain.test']);
    index.removeRRset('chain.test', 'b', 'A');
    expect(next('a.chain.test')?.nextDomain).toBe('c.chain.test');
    expect(index.lookup('b.chain.test', 'A', true).kind).toBe('nxdomain');
    // A serial bump (putZone) re-signs the SOA and keeps the DNSKEY RRset signed.
    index.putZone({
      name: 'chain.test',
      ownerAccountId: null,
      soa: { mname: 'ns.chain.test', rname: 'h.chain.test', serial: 2, refresh: 1, retry: 1, expire: 1, minimum: 60 },
      ttl: 3600,
      nameservers: ['ns.example.net'],
    });
    expect(index.lookup('chain.test', 'DNSKEY', true).answers.map((a) => a.type)).toEqual(['DNSKEY', 'RRSIG']);
    expect(
      index
        .lookup('chain.test', 'SOA', true)
        .answers.map((a) => [a.type, (a as { data?: { serial?: number } }).data?.serial ?? null]),
    ).toEqual([
      ['SOA', 2],
      ['RRSIG', null],
    ]);
    await index.setSigning('chain.test', null);
    expect(index.lookup('a.chain.test', 'A', true).answers.map((a) => a.type)).toEqual(['A']);
    expect(index.lookup('chain.test', 'DNSKEY').kind).toBe('nodata');
  });

  it('maintains exactly the NSEC chain a fresh signing builds, through random adds and removes (delegations included)', async () => {
    const def = {
      name: 'rand.test',
      ownerAccountId: null,
      soa: { mname: 'ns.rand.test', rname: 'h.rand.test', serial: 1, refresh: 1, retry: 1, expire: 1, minimum: 60 },
      ttl: 3600,
      nameservers: ['ns.example.net'],
    };
    const key = generateKey(15);
    const signer = servedKey(key);
    const signing = zoneSigning('rand.test', [signer], { inception: 0, expiration: 2 ** 31 }, { kind: 'none' }, 3600);
    const live = new ZoneIndex();
    live.putZone(def);
    await live.setSigning('rand.test', signing);
    const names = ['a', 'b', 'a.b', 'x.a.b', 'c', '*.c', 'd.c', 'sub', 'ns.sub', 'deep.x.y', 'z', '_tcp.z'];
    const types = ['A', 'TXT', 'NS'];
    const state = new Map<string, string[]>();
    let seed = 7;
    const rnd = (n: number) => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n;
    for (let step = 0; step < 300; step++) {
      const name = names[rnd(names.length)];
      const type = types[rnd(types.length)];
      const k = `${name}|${type}`;
      if (rnd(3) === 0) {
        live.removeRRset('rand.test', name, type);
        state.delete(k);
      } else {
        const records =
          type === 'A' ? [`192.0.2.${rnd(250) + 1}`] : type === 'TXT' ? [`"t${rnd(9)}"`] : ['ns.example.org.'];
        live.setRRset('rand.test', name, type, 60, records);
        state.set(k, records);
      }
    }
    const fresh = new ZoneIndex();
    fresh.putZone(def);
    for (const [k, records] of state) {
      const [name, type] = k.split('|');
      fresh.setRRset('rand.test', name, type, 60, records);
    }
    await fresh.setSigning('rand.test', signing);
    const view = (index: ZoneIndex) =>
      ['', ...names, 'nope', 'q.nope.c'].map((n) => {
        const fqdn = n ? `${n}.rand.test` : 'rand.test';
        const nsec = index.lookup(fqdn, 'NSEC', true);
        const nx = index.lookup(fqdn, 'A', true);
        const strip = (answers: typeof nsec.answers) =>
          answers.filter((a) => a.type === 'NSEC').map((a) => JSON.stringify([a.name, (a as { data?: unknown }).data]));
        return [fqdn, nsec.kind, strip(nsec.answers), nx.kind, strip(nx.authorities).sort()];
      });
    expect(view(live)).toEqual(view(fresh));
  });

  it('re-signs a large zone under a new key a slice at a time: the apex and DNSKEY at once, old signatures served meanwhile', async () => {
    const index = zoneOf300Hosts('roll.test');
    const [oldKey, newKey] = [servedKey(generateKey(13)), servedKey(generateKey(13))];
    const window = { inception: 0, expiration: 2 ** 31 };
    await index.setSigning('roll.test', zoneSigning('roll.test', [oldKey], window, { kind: 'none' }, 3600));
    const tags = () =>
      new Set(
        Array.from({ length: 300 }, (_, i) => {
          const sig = index.lookup(`h${i}.roll.test`, 'A', true).answers.find((a) => a.type === 'RRSIG') as
            { data: { keyTag: number } } | undefined;
          return sig?.data.keyTag;
        }),
      );
    expect(tags()).toEqual(new Set([oldKey.tag]));
    // The switch to the new key (in a rollover the old one stays published meanwhile, RFC 7583).
    const rolled = index.setSigning(
      'roll.test',
      zoneSigning('roll.test', [newKey], window, { kind: 'none' }, 3600),
      100,
    );
    const apexSig = index.lookup('roll.test', 'SOA', true).answers.find((a) => a.type === 'RRSIG') as {
      data: { keyTag: number };
    };
    expect(apexSig.data.keyTag).toBe(newKey.tag);
    expect(tags()).toEqual(new Set([oldKey.tag, newKey.tag])); // part done: the DNS thread answers in between
    await rolled;
    expect(tags()).toEqual(new Set([newKey.tag]));
  });

  it('refreshes the signature window a slice at a time, old signatures served meanwhile, all new at the end', async () => {
    const index = zoneOf300Hosts('big.test');
    const key = generateKey(15);
    const signer = servedKey(key);
    const signingFor = (expiration: number) =>
      zoneSigning('big.test', [signer], { inception: 0, expiration }, { kind: 'none' }, 3600);
    await index.setSigning('big.test', signingFor(1_000_000_000));
    const expirations = () =>
      new Set(
        Array.from({ length: 300 }, (_, i) => {
          const sig = index.lookup(`h${i}.big.test`, 'A', true).answers.find((a) => a.type === 'RRSIG') as
            { data: { expiration: number } } | undefined;
          return sig?.data.expiration;
        }),
      );
    const refreshed = index.refreshSigning('big.test', signingFor(2_000_000_000), 50);
    expect(expirations()).toEqual(new Set([1_000_000_000, 2_000_000_000])); // part done, the rest still served with its valid signatures
    index.setRRset('big.test', 'new', 'A', 60, ['192.0.2.9']); // a change meanwhile is signed with the new window
    expect(
      (
        index.lookup('new.big.test', 'A', true).answers.find((a) => a.type === 'RRSIG') as {
          data: { expiration: number };
        }
      ).data.expiration,
    ).toBe(2_000_000_000);
    await refreshed;
    expect(expirations()).toEqual(new Set([2_000_000_000]));
    const soaSig = index
      .lookup('nope.big.test', 'A', true)
      .authorities.find(
        (a) => a.type === 'RRSIG' && (a as { data: { typeCovered: string } }).data.typeCovered === 'SOA',
      ) as {
      data: { expiration: number };
    };
    expect(soaSig.data.expiration).toBe(2_000_000_000);
  });
});
