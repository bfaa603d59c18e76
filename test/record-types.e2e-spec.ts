import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { DnsServer, ZoneIndex } from '../libs/dns-server';
import { freePort } from './support/server-process';
import { registerAndLogin, startTestApp, TestApp } from './support/test-app';
import { queryDns, waitForDns } from './support/dns-client';

const run = promisify(execFile);
const HASH = 'A'.repeat(64);

/** [type, presentation as given, what dig prints for it (BIND's own rendering of our wire data)] */
const CASES: Array<[string, string, string]> = [
  ['PTR', 'host.example.org.', 'host.example.org.'],
  ['TLSA', `3 1 1 ${HASH.toLowerCase()}`, `3 1 1 ${HASH}`],
  ['SMIMEA', `3 1 1 ${HASH}`, `3 1 1 ${HASH}`],
  [
    'SSHFP',
    '4 2 0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF',
    '4 2 0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF',
  ],
  ['NAPTR', '100 10 "S" "SIP+D2U" "" _sip._udp.example.org.', '100 10 "S" "SIP+D2U" "" _sip._udp.example.org.'],
  ['URI', '10 1 "https://example.org/"', '10 1 "https://example.org/"'],
  ['OPENPGPKEY', 'AQIDBAUGBwg=', 'AQIDBAUGBwg='],
  ['CERT', 'PKIX 0 0 AQIDBA==', 'PKIX 0 0 AQIDBA=='],
  ['SVCB', '1 svc.example.org. alpn=h2,h3 port=8443', '1 svc.example.org. alpn="h2,h3" port=8443'],
  [
    'HTTPS',
    '1 . alpn="h2" ipv4hint=192.0.2.1 ipv6hint=2001:db8::1',
    '1 . alpn="h2" ipv4hint=192.0.2.1 ipv6hint=2001:db8::1',
  ],
  ['HTTPS', '0 cdn.example.org.', '0 cdn.example.org.'],
];

describe('record types of a signed modern zone (issue 29)', () => {
  let index: ZoneIndex;
  let server: DnsServer;
  let port: number;

  beforeAll(async () => {
    index = new ZoneIndex();
    index.putZone({
      name: 'types.test',
      ownerAccountId: null,
      soa: {
        mname: 'ns1.example.net',
        rname: 'hostmaster.types.test',
        serial: 1,
        refresh: 3600,
        retry: 600,
        expire: 604800,
        minimum: 60,
      },
      ttl: 3600,
      nameservers: ['ns1.example.net'],
    });
    CASES.forEach(([type, text], i) => index.setRRset('types.test', `r${i}`, type, 300, [text]));
    server = new DnsServer({ host: '127.0.0.1', port: 0, index });
    port = (await server.start()).port;
  });
  afterAll(() => server.stop());

  it.each(CASES.map((c, i) => [...c, i] as const))(
    'serves %s as dig reads it: %s',
    async (type, _text, expected, i) => {
      const { stdout } = await run('dig', ['@127.0.0.1', '-p', String(port), '+short', `r${i}.types.test`, type], {
        encoding: 'utf8',
      });
      // dig breaks long hex and base64 into chunks: compare without blanks inside the data.
      expect(stdout.replace(/\s+/g, '')).toBe(expected.replace(/\s+/g, ''));
    },
  );

  it('refuses malformed ones, naming the problem', () => {
    for (const [type, text, problem] of [
      ['TLSA', '3 1 1 ABC', /hexadecimal/],
      ['TLSA', '4 1 1 ' + HASH, /usage/],
      ['TLSA', '3 1 1 ' + 'AA'.repeat(31), /32 bytes/],
      ['SSHFP', '4 3 ' + HASH, /fingerprint type/],
      ['URI', '10 1 https://unquoted', /quoted target/],
      ['OPENPGPKEY', 'not base64!', /base64/],
      ['HTTPS', '0 . alpn=h2', /AliasMode/],
      ['HTTPS', '1 . port=99999', /port/],
      ['HTTPS', '1 . mandatory=alpn', /missing/],
      ['SVCB', '1 . bogus=1', /unknown SvcParamKey/],
      ['NAPTR', '100 10 "S" "SIP" ""', /expected/],
      ['PTR', 'not a name', /expected a host name/],
    ] as Array<[string, string, RegExp]>) {
      expect(() => index.setRRset('types.test', 'bad', type, 300, [text])).toThrow(problem);
    }
  });
});

describe('record types through the API and the BIND import', () => {
  let app: TestApp;
  let dnsPort: number;
  let owner: { token: string };

  beforeAll(async () => {
    dnsPort = await freePort();
    app = await startTestApp({ env: { DNS_PORT: String(dnsPort) } });
    owner = await registerAndLogin(app.http);
  });
  afterAll(() => app.close());

  it('imports them from a master file and serves them', async () => {
    const file = `$ORIGIN modern.test.
$TTL 300
_443._tcp.www IN TLSA 3 1 1 ${HASH}
host IN SSHFP 4 2 ${HASH}
www IN HTTPS 1 . alpn=h2,h3
_sip IN NAPTR 100 10 "S" "SIP+D2U" "" _sip._udp
ptr IN PTR target
`;
    const res = await app.http.post('/zones', { name: 'modern.test', zone_file: file }, owner.token);
    expect(res.status).toBe(201);
    const records = (await app.http.get('/zones/modern.test/records', owner.token)).body.records;
    expect(records).toEqual(
      expect.arrayContaining([
        { subname: '_443._tcp.www', type: 'TLSA', ttl: 300, records: [`3 1 1 ${HASH}`] },
        { subname: 'www', type: 'HTTPS', ttl: 300, records: ['1 . alpn="h2,h3"'] },
        { subname: '_sip', type: 'NAPTR', ttl: 300, records: ['100 10 "S" "SIP+D2U" "" _sip._udp.modern.test.'] },
        { subname: 'ptr', type: 'PTR', ttl: 300, records: ['target.modern.test.'] },
      ]),
    );
    // Served once every DNS thread has the import (they follow the event log: read-your-writes is the API's).
    await waitForDns(dnsPort, 'ptr.modern.test', 'PTR', ['target.modern.test'], 5_000);
    const tlsa = await queryDns(dnsPort, '_443._tcp.www.modern.test', 'TLSA');
    expect(tlsa.answers?.length).toBe(1);
  });

  it('takes them through PUT records, and refuses a malformed one with 400 changing nothing', async () => {
    const ok = await app.http.put(
      '/zones/modern.test/records',
      { records: [{ subname: 'mail', type: 'URI', ttl: 300, records: ['10 1 "mailto:a@example.org"'] }] },
      owner.token,
    );
    expect(ok.status).toBe(200);
    const bad = await app.http.put(
      '/zones/modern.test/records',
      {
        records: [
          { subname: 'x', type: 'A', ttl: 300, records: ['192.0.2.1'] },
          { subname: '_25._tcp.mail', type: 'TLSA', ttl: 300, records: ['3 1 1 XYZ'] },
        ],
      },
      owner.token,
    );
    expect([bad.status, bad.body.error.code]).toEqual([400, 'validation_failed']);
    expect(bad.body.error.message).toMatch(/records\[1\]\.records\[0\]/);
    expect(
      (await app.http.get('/zones/modern.test/records', owner.token)).body.records.some(
        (r: { subname: string }) => r.subname === 'x',
      ),
    ).toBe(false);
  });
});
