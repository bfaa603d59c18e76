import * as dnsPacket from 'dns-packet';
import type { Answer } from 'dns-packet';
import { ZoneIndex, type ZoneDefinition } from './zone-index';

const zoneDef = (name: string, extra: Partial<ZoneDefinition> = {}): ZoneDefinition => ({
  name,
  ownerAccountId: 'acct-1',
  soa: {
    mname: 'ns1.dns.test',
    rname: 'hostmaster.dns.test',
    serial: 7,
    refresh: 3600,
    retry: 600,
    expire: 604800,
    minimum: 300,
  },
  ttl: 3600,
  nameservers: ['ns1.dns.test', 'ns2.dns.test'],
  ...extra,
});

const summary = (answers: Answer[]) =>
  answers.map((a) => `${a.name} ${a.type} ${'ttl' in a ? a.ttl : ''} ${JSON.stringify('data' in a ? a.data : null)}`);

describe('ZoneIndex', () => {
  let index: ZoneIndex;
  beforeEach(() => {
    index = new ZoneIndex();
    index.putZone(zoneDef('example.com'));
    index.setRRset('example.com', 'www', 'A', 300, ['192.0.2.10', '192.0.2.11']);
    index.setRRset('example.com', '', 'MX', 300, ['10 mail.example.com.']);
    index.setRRset('example.com', 'mail', 'A', 300, ['192.0.2.25']);
  });

  it('answers an RRset authoritatively, case-insensitively', () => {
    const r = index.lookup('WWW.Example.COM', 'A');
    expect(r).toMatchObject({
      kind: 'answer',
      rcode: 'NOERROR',
      authoritative: true,
      zone: 'example.com',
      domain: 'example.com',
      accountId: 'acct-1',
    });
    expect(r.answers.map((a) => ('data' in a ? a.data : null)).sort()).toEqual(['192.0.2.10', '192.0.2.11']);
    expect(r.authorities).toEqual([]);
  });

  it('encodes address records (the DDNS path, written directly) byte for byte as dns-packet does', () => {
    const v6 = ['2001:db8::1', '::ffff:192.0.2.1', '2001:db8:0:0:1:0:0:1', 'fe80::1234:5678:9abc:def0'];
    index.setRRset('example.com', 'v4', 'A', 86400, ['203.0.113.7', '0.0.0.0', '255.255.255.255']);
    index.setRRset('example.com', 'v6', 'AAAA', 60, v6);
    const encoded = (owner: string) =>
      index
        .contents('example.com')!
        .rrsets.filter((r) => r.owner === owner)
        .flatMap((r) => r.rrset.encoded.map((b) => b.toString('hex')));
    const expected = (type: 'A' | 'AAAA', ttl: number, data: string[]) =>
      data.map((d) =>
        (dnsPacket as unknown as { answer: { encode(a: Answer): Buffer } }).answer
          .encode({ type, name: '.', ttl, class: 'IN', data: d } as Answer)
          .subarray(1)
          .toString('hex'),
      );
    const key = (name: string) =>
      name
        .split('.')
        .map((l) => String.fromCharCode(l.length) + l)
        .join('') + '\0';
    expect(encoded(key('v4.example.com'))).toEqual(expected('A', 86400, ['203.0.113.7', '0.0.0.0', '255.255.255.255']));
    expect(encoded(key('v6.example.com'))).toEqual(expected('AAAA', 60, v6));
  });

  it('serves SOA and NS at the apex from the zone definition', () => {
    const soa = index.lookup('example.com', 'SOA').answers[0];
    expect(soa).toMatchObject({
      type: 'SOA',
      ttl: 3600,
      data: { mname: 'ns1.dns.test', rname: 'hostmaster.dns.test', serial: 7, minimum: 300 },
    });
    expect(index.lookup('example.com', 'NS').answers.map((a) => ('data' in a ? a.data : null))).toEqual([
      'ns1.dns.test',
      'ns2.dns.test',
    ]);
    index.setRRset('example.com', '@', 'NS', 300, ['ns.elsewhere.test.']);
    expect(index.lookup('example.com', 'NS').answers).toHaveLength(2);
  });

  it('answers NXDOMAIN and NODATA with the SOA at min(ttl, minimum) in authority', () => {
    const nx = index.lookup('nope.example.com', 'A');
    expect(nx).toMatchObject({ kind: 'nxdomain', rcode: 'NXDOMAIN', authoritative: true, answers: [] });
    expect(summary(nx.authorities)).toEqual([expect.stringMatching(/^example\.com SOA 300 /)]);
    const nodata = index.lookup('www.example.com', 'AAAA');
    expect(nodata).toMatchObject({ kind: 'nodata', rcode: 'NOERROR', authoritative: true, answers: [] });
    expect(nodata.authorities[0]).toMatchObject({ type: 'SOA', ttl: 300 });
  });

  it('refuses names outside its zones, and zone transfers', () => {
    expect(index.lookup('example.org', 'A')).toMatchObject({
      kind: 'refused',
      rcode: 'REFUSED',
      authoritative: false,
      zone: null,
    });
    expect(index.lookup('com', 'A').rcode).toBe('REFUSED');
    expect(index.lookup('example.com', 'AXFR').rcode).toBe('REFUSED');
  });

  it('treats empty non-terminals as existing (NODATA, not NXDOMAIN)', () => {
    index.setRRset('example.com', 'a.b.c', 'TXT', 60, ['"deep"']);
    expect(index.lookup('b.c.example.com', 'A').kind).toBe('nodata');
    expect(index.lookup('c.example.com', 'TXT').kind).toBe('nodata');
    index.removeRRset('example.com', 'a.b.c', 'TXT');
    expect(index.lookup('c.example.com', 'TXT').kind).toBe('nxdomain');
  });

  describe('CNAME', () => {
    it('answers any type with the CNAME and chases it inside the zone', () => {
      index.setRRset('example.com', 'alias', 'CNAME', 120, ['www.example.com.']);
      const r = index.lookup('alias.example.com', 'A');
      expect(summary(r.answers)).toEqual([
        'alias.example.com CNAME 120 "www.example.com"',
        'www.example.com A 300 "192.0.2.10"',
        'www.example.com A 300 "192.0.2.11"',
      ]);
      expect(index.lookup('alias.example.com', 'CNAME').answers).toHaveLength(1);
    });

    it('reports NXDOMAIN when the chain ends at a missing name, and stops at other zones', () => {
      index.setRRset('example.com', 'dangling', 'CNAME', 60, ['gone.example.com.']);
      const r = index.lookup('dangling.example.com', 'A');
      expect(r.rcode).toBe('NXDOMAIN');
      expect(r.answers).toHaveLength(1);
      expect(r.authorities[0].type).toBe('SOA');
      index.setRRset('example.com', 'out', 'CNAME', 60, ['www.example.org.']);
      expect(index.lookup('out.example.com', 'A')).toMatchObject({ rcode: 'NOERROR', authorities: [] });
    });

    it('stops on loops and on long chains', () => {
      index.setRRset('example.com', 'l1', 'CNAME', 60, ['l2.example.com.']);
      index.setRRset('example.com', 'l2', 'CNAME', 60, ['l1.example.com.']);
      expect(index.lookup('l1.example.com', 'A').answers.map((a) => a.name)).toEqual([
        'l1.example.com',
        'l2.example.com',
      ]);
      for (let i = 0; i < 20; i++) index.setRRset('example.com', `c${i}`, 'CNAME', 60, [`c${i + 1}.example.com.`]);
      expect(index.lookup('c0.example.com', 'A').answers.length).toBeLessThanOrEqual(8);
    });

    it('cannot share a name with other data or sit at the apex', () => {
      expect(() => index.setRRset('example.com', 'www', 'CNAME', 60, ['x.example.com.'])).toThrow(/cannot coexist/);
      index.setRRset('example.com', 'alias', 'CNAME', 60, ['www.example.com.']);
      expect(() => index.setRRset('example.com', 'alias', 'TXT', 60, ['"x"'])).toThrow(/cannot coexist/);
      expect(() => index.setRRset('example.com', '', 'CNAME', 60, ['x.example.com.'])).toThrow(/apex/);
      expect(() => index.setRRset('example.com', 'two', 'CNAME', 60, ['a.example.com.', 'b.example.com.'])).toThrow(
        /exactly one/,
      );
    });
  });

  describe('wildcards', () => {
    beforeEach(() => index.setRRset('example.com', '*.apps', 'A', 60, ['192.0.2.99']));

    it('synthesize answers only where no closer name exists', () => {
      const r = index.lookup('Foo.apps.example.com', 'A');
      expect(summary(r.answers)).toEqual(['Foo.apps.example.com A 60 "192.0.2.99"']);
      index.setRRset('example.com', 'real.apps', 'TXT', 60, ['"here"']);
      expect(index.lookup('real.apps.example.com', 'A').kind).toBe('nodata');
      expect(index.lookup('x.real.apps.example.com', 'A').kind).toBe('nxdomain');
      expect(index.lookup('nope.example.com', 'A').kind).toBe('nxdomain');
    });

    it('give NODATA for types the wildcard lacks', () => {
      expect(index.lookup('foo.apps.example.com', 'AAAA')).toMatchObject({ kind: 'nodata', rcode: 'NOERROR' });
    });
  });

  it('refers below a delegation without AA, with glue', () => {
    index.setRRset('example.com', 'sub', 'NS', 3600, ['ns.sub.example.com.', 'ns.other.test.']);
    index.setRRset('example.com', 'ns.sub', 'A', 3600, ['192.0.2.53']);
    const r = index.lookup('host.sub.example.com', 'A');
    expect(r).toMatchObject({ kind: 'referral', rcode: 'NOERROR', authoritative: false, answers: [] });
    expect(summary(r.authorities)).toHaveLength(2);
    expect(summary(r.additionals)).toEqual(['ns.sub.example.com A 3600 "192.0.2.53"']);
    expect(index.lookup('sub.example.com', 'DS')).toMatchObject({ kind: 'nodata', authoritative: true });
  });

  it('answers ANY with one small RRset (RFC 8482)', () => {
    const r = index.lookup('example.com', 'ANY');
    expect(r.answers).toEqual([expect.objectContaining({ type: 'HINFO', data: { cpu: 'RFC8482', os: '' } })]);
  });

  it('attributes queries to the owning host, else the zone', () => {
    index.putZone(zoneDef('dyn.example.net', { ownerAccountId: null }));
    index.setRRset('dyn.example.net', 'home', 'A', 60, ['198.51.100.7'], {
      accountId: 'acct-9',
      domain: 'home.dyn.example.net',
    });
    expect(index.lookup('home.dyn.example.net', 'A')).toMatchObject({
      domain: 'home.dyn.example.net',
      accountId: 'acct-9',
    });
    expect(index.lookup('home.dyn.example.net', 'TXT')).toMatchObject({
      kind: 'nodata',
      domain: 'home.dyn.example.net',
      accountId: 'acct-9',
    });
    expect(index.lookup('x.home.dyn.example.net', 'A')).toMatchObject({
      kind: 'nxdomain',
      domain: 'home.dyn.example.net',
      accountId: 'acct-9',
    });
    expect(index.lookup('other.dyn.example.net', 'A')).toMatchObject({
      kind: 'nxdomain',
      domain: 'dyn.example.net',
      accountId: null,
    });
  });

  it('picks the longest matching zone', () => {
    index.putZone(zoneDef('sub.example.com', { ownerAccountId: 'acct-2' }));
    index.setRRset('sub.example.com', 'www', 'A', 60, ['203.0.113.1']);
    expect(index.lookup('www.sub.example.com', 'A')).toMatchObject({ zone: 'sub.example.com', accountId: 'acct-2' });
    index.removeZone('sub.example.com');
    expect(index.lookup('www.sub.example.com', 'A')).toMatchObject({ zone: 'example.com', kind: 'nxdomain' });
  });

  it('answers from a zone added or removed after the same question was answered (front cache)', () => {
    expect(index.lookup('www.sub.example.com', 'A')).toMatchObject({ zone: 'example.com', kind: 'nxdomain' });
    index.putZone(zoneDef('sub.example.com', { ownerAccountId: 'acct-2' }));
    index.setRRset('sub.example.com', 'www', 'A', 60, ['203.0.113.1']);
    expect(index.lookup('www.sub.example.com', 'A')).toMatchObject({ zone: 'sub.example.com', kind: 'answer' });
    index.removeZone('sub.example.com');
    expect(index.lookup('www.sub.example.com', 'A')).toMatchObject({ zone: 'example.com', kind: 'nxdomain' });
    index.removeZone('example.com');
    expect(index.lookup('www.example.com', 'A').kind).toBe('refused');
  });

  it('serves a change on the next lookup (cached answers are invalidated)', () => {
    expect(index.lookup('www.example.com', 'A').answers).toHaveLength(2);
    index.setRRset('example.com', 'www', 'A', 300, ['192.0.2.50']);
    expect(summary(index.lookup('www.example.com', 'A').answers)).toEqual(['www.example.com A 300 "192.0.2.50"']);
    index.setRRset('example.com', 'www', 'A', 300, []);
    expect(index.lookup('www.example.com', 'A').kind).toBe('nxdomain');
    index.putZone(zoneDef('example.com', { soa: { ...zoneDef('x').soa, serial: 8 } }));
    expect(index.lookup('example.com', 'SOA').answers[0]).toMatchObject({ data: { serial: 8 } });
    expect(index.lookup('mail.example.com', 'A').answers).toHaveLength(1);
  });

  it('accepts absolute owner names inside the zone and rejects others', () => {
    index.setRRset('example.com', 'abs.example.com.', 'TXT', 60, ['"abs"']);
    expect(index.lookup('abs.example.com', 'TXT').kind).toBe('answer');
    expect(() => index.setRRset('example.com', 'x.example.org.', 'A', 60, ['192.0.2.1'])).toThrow(/not in zone/);
    expect(() => index.setRRset('example.com', 'bad label', 'A', 60, ['192.0.2.1'])).toThrow(/owner name/);
    expect(() => index.setRRset('example.com', 'www', 'A', 60, ['999.0.0.1'])).toThrow(/invalid A record/);
    expect(() => index.setRRset('nozone.test', 'www', 'A', 60, ['192.0.2.1'])).toThrow(/not in the index/);
    expect(index.rrsets('example.com', 'www')).toEqual([
      { type: 'A', ttl: 300, records: ['192.0.2.10', '192.0.2.11'] },
    ]);
  });

  describe("ZoneIndex.explain (the history API's resolve)", () => {
    const index = new ZoneIndex();
    index.putZone(zoneDef('example.com'));
    index.setRRset('example.com', 'www', 'A', 300, ['192.0.2.10']);
    index.setRRset('example.com', 'alias', 'CNAME', 120, ['www.example.com.']);
    index.setRRset('example.com', '*.wild', 'TXT', 60, ['"hi"']);

    it('follows a CNAME chain inside the zone, naming each RRset by its owner', () => {
      expect(index.explain('Alias.example.com.', 'A')).toEqual({
        rcode: 'NOERROR',
        answer: [
          { name: 'alias.example.com', type: 'CNAME', ttl: 120, records: ['www.example.com.'] },
          { name: 'www.example.com', type: 'A', ttl: 300, records: ['192.0.2.10'] },
        ],
        authority: [],
      });
    });

    it('answers NXDOMAIN and NODATA with the SOA in authority, and wildcards at the query name', () => {
      const soa = {
        name: 'example.com',
        type: 'SOA',
        ttl: 300,
        records: ['ns1.dns.test. hostmaster.dns.test. 7 3600 600 604800 300'],
      };
      expect(index.explain('nope.example.com', 'A')).toEqual({ rcode: 'NXDOMAIN', answer: [], authority: [soa] });
      expect(index.explain('www.example.com', 'AAAA')).toEqual({ rcode: 'NOERROR', answer: [], authority: [soa] });
      expect(index.explain('x.wild.example.com', 'TXT').answer).toEqual([
        { name: 'x.wild.example.com', type: 'TXT', ttl: 60, records: ['"hi"'] },
      ]);
    });

    it('agrees with the encoded answer the server sends', () => {
      for (const [name, type] of [
        ['www.example.com', 'A'],
        ['alias.example.com', 'A'],
        ['nope.example.com', 'MX'],
      ]) {
        const sent = index.lookup(name, type);
        const explained = index.explain(name, type);
        expect(explained.rcode).toBe(sent.rcode);
        expect(explained.answer.flatMap((r) => r.records.map(() => `${r.name} ${r.type} ${r.ttl}`))).toEqual(
          sent.answers.map((a) => `${a.name} ${a.type} ${'ttl' in a ? a.ttl : ''}`),
        );
      }
    });
  });
});
