/**
 * The DNS server's response cache over real UDP sockets (the batch addon and node:dgram):
 * every answer a repeated question gets from the cache must be byte for byte the answer the
 * full path (parseQuery, the index, writeResponse) gives that very query: same ID, RD/CD,
 * case of the name as sent (0x20), EDNS variant and truncation. Changes to the index are
 * seen by the next query, and the query sink gets the same facts either way.
 */
import * as dnsPacket from 'dns-packet';
import { DnsServer, ZoneIndex, type AnsweredQuery } from '../libs/dns-server';
import {
  encodeCacheQuery as encodeQuery,
  fullPathAnswer,
  udpExchange,
  type CacheQuery as Q,
} from './support/cached-answers';
import { startWith, testIndex, testZone } from './support/dns-test-zone';

const HOST = '127.0.0.1';

const buildIndex = (): ZoneIndex =>
  testIndex((index) => {
    // About 800 bytes of TXT: fits 1232 bytes, not 512, so the EDNS size decides truncation.
    index.setRRset(
      'example.com',
      'mid',
      'TXT',
      300,
      Array.from({ length: 4 }, (_, i) => `"${String(i)}${'m'.repeat(190)}"`),
    );
  });

const udpPaths: Array<{ io: 'batch' | 'dgram'; env: string | undefined }> = [
  ...(process.platform === 'linux' ? [{ io: 'batch' as const, env: undefined }] : []),
  { io: 'dgram', env: 'off' },
];

/** What the log keeps of a query, without the per-query times and the source port's address. */
const facts = (q: AnsweredQuery) => {
  const { durationMs, timestamp, ...rest } = q;
  expect(durationMs).toBeGreaterThanOrEqual(0);
  expect(timestamp).toBeGreaterThan(0);
  return rest;
};

describe.each(udpPaths)('DNS response cache over UDP ($io)', ({ io, env }) => {
  let index: ZoneIndex;
  let server: DnsServer;
  let port: number;
  const logged: AnsweredQuery[] = [];

  beforeEach(async () => {
    index = buildIndex();
    logged.length = 0;
    server = new DnsServer({ host: HOST, port: 0, index, sink: { record: (q) => void logged.push(q) } });
    port = await startWith(server, env);
    expect(server.udpIo).toBe(io);
  });

  afterEach(() => server.stop());

  /** Asks twice (the second from the cache) and checks both against the full path. */
  async function askTwice(q: Q): Promise<Buffer> {
    const first = encodeQuery({ ...q, id: 1111 });
    const second = encodeQuery({ ...q, id: 2222 });
    const a = await udpExchange(port, first);
    const cached = server.cachedResponses;
    const b = await udpExchange(port, second);
    expect(a).toEqual(fullPathAnswer(index, first));
    expect(b).toEqual(fullPathAnswer(index, second));
    expect(server.cachedResponses).toBe(cached); // the second was a hit: nothing new stored
    return b;
  }

  it('answers a repeated question from the cache, identical to the full path but for the ID', async () => {
    const b = await askTwice({ name: 'www.example.com', type: 'A', edns: 1232 });
    expect(server.cachedResponses).toBe(1);
    expect(b.readUInt16BE(0)).toBe(2222);
    const decoded = dnsPacket.decode(b);
    expect(decoded.answers?.map((a) => ('data' in a ? a.data : null))).toEqual(['192.0.2.10']);
    await askTwice({ name: 'alias.example.com', type: 'A' });
    await askTwice({ name: 'missing.example.com', type: 'A', edns: 1232 });
    await askTwice({ name: 'www.example.com', type: 'TXT' });
    await askTwice({ name: 'elsewhere.test', type: 'A' });
  });

  it('echoes the question as sent (0x20 mixed case) and the RD/CD bits of each query', async () => {
    await udpExchange(port, encodeQuery({ name: 'www.example.com', type: 'A', edns: 1232 }));
    const stored = server.cachedResponses;
    for (const q of [
      { name: 'WwW.ExAmPlE.cOm', type: 'A', edns: 1232 },
      { name: 'WWW.EXAMPLE.COM', type: 'A', edns: 1232, rd: false, cd: true },
      { name: 'www.example.com', type: 'A', edns: 1232, rd: false },
    ]) {
      const msg = encodeQuery({ ...q, id: 77 });
      const answer = await udpExchange(port, msg);
      expect(answer).toEqual(fullPathAnswer(index, msg));
      expect(answer.subarray(12, 12 + q.name.length + 2).toString('latin1')).toContain(q.name.split('.')[0]);
    }
    expect(server.cachedResponses).toBe(stored); // every case variant was a hit on one entry
  });

  it('keeps EDNS variants apart: no OPT, UDP sizes, DO', async () => {
    // Largest first, so a wrong hit would hand the 1232-byte answer to a 512-byte client.
    const variants: Q[] = [
      { name: 'mid.example.com', type: 'TXT', edns: 1232 },
      { name: 'mid.example.com', type: 'TXT', edns: 4096, dnssec: true },
      { name: 'mid.example.com', type: 'TXT', edns: 512 },
      { name: 'mid.example.com', type: 'TXT' },
      { name: 'mid.example.com', type: 'TXT', edns: 1232, dnssec: true },
    ];
    const answers: Buffer[] = [];
    for (const q of variants) answers.push(await askTwice(q));
    const tc = answers.map((a) => (a[2] & 0x02) !== 0);
    expect(tc).toEqual([false, false, true, true, false]);
    const doBit = answers.map(
      (a) =>
        (dnsPacket.decode(a).additionals?.find((r) => r.type === 'OPT') as dnsPacket.OptAnswer | undefined)?.flags ??
        null,
    );
    expect(doBit).toEqual([0, dnsPacket.DNSSEC_OK, 0, null, dnsPacket.DNSSEC_OK]);
    // 4096 clamps to 1232: with DO both share an entry; 512 and no OPT differ in EDNS.
    expect(server.cachedResponses).toBe(4);
  });

  it('sees a change to the index at the next query (a DDNS update)', async () => {
    await askTwice({ name: 'home.dyn.example.net', type: 'A' });
    index.setRRset('dyn.example.net', 'home', 'A', 60, ['203.0.113.5']);
    const changed = dnsPacket.decode(await udpExchange(port, encodeQuery({ name: 'home.dyn.example.net', type: 'A' })));
    expect(changed.answers?.map((a) => ('data' in a ? a.data : null))).toEqual(['203.0.113.5']);
    await askTwice({ name: 'home.dyn.example.net', type: 'A' });
    index.removeRRset('dyn.example.net', 'home', 'A');
    const gone = dnsPacket.decode(
      await udpExchange(port, encodeQuery({ name: 'home.dyn.example.net', type: 'A' })),
    ) as dnsPacket.DecodedPacket & { rcode: string };
    expect(gone.rcode).toBe('NXDOMAIN');
    // A new zone can take over names answered before.
    await askTwice({ name: 'x.elsewhere.test', type: 'A' });
    index.putZone(testZone('elsewhere.test', 'acct-2'));
    index.setRRset('elsewhere.test', 'x', 'A', 60, ['192.0.2.44']);
    const taken = dnsPacket.decode(await udpExchange(port, encodeQuery({ name: 'x.elsewhere.test', type: 'A' })));
    expect(taken.answers?.map((a) => ('data' in a ? a.data : null))).toEqual(['192.0.2.44']);
  });

  it('answers queries outside the plain shape the full way, every time', async () => {
    // EDNS version 1: BADVERS; a query with an answer record; a non-IN class.
    const badVersion = encodeQuery({ name: 'www.example.com', type: 'A', edns: 1232, ednsVersion: 1 });
    const withAnswer = dnsPacket.encode({
      type: 'query',
      id: 9,
      questions: [{ name: 'www.example.com', type: 'A' }],
      answers: [{ type: 'A', name: 'www.example.com', data: '192.0.2.1' }],
    });
    const chaos = dnsPacket.encode({
      type: 'query',
      id: 10,
      questions: [{ name: 'www.example.com', type: 'A', class: 'CH' }],
    });
    for (const msg of [badVersion, badVersion, withAnswer, withAnswer])
      expect(await udpExchange(port, msg)).toEqual(fullPathAnswer(index, msg));
    for (const msg of [chaos, chaos]) expect(await udpExchange(port, msg)).toEqual(fullPathAnswer(index, msg));
    expect((await udpExchange(port, badVersion))[3] & 0x0f).toBe(0);
    expect(server.cachedResponses).toBe(1); // the CH query alone is plain
  });

  it('gives the query sink the same facts for a cached answer as for the full path', async () => {
    const queries: Q[] = [
      { name: 'www.example.com', type: 'AAAA', edns: 1232, dnssec: true },
      { name: 'nothere.dyn.example.net', type: 'A' },
      { name: 'HOME.dyn.example.net', type: 'A', edns: 4096 },
      { name: 'mid.example.com', type: 'TXT' },
    ];
    for (const q of queries) {
      logged.length = 0;
      await udpExchange(port, encodeQuery(q));
      await udpExchange(port, encodeQuery(q));
      expect(logged).toHaveLength(2);
      expect(facts(logged[1])).toEqual(facts(logged[0]));
    }
    expect(facts(logged[0])).toMatchObject({
      name: 'mid.example.com',
      type: 'TXT',
      rcode: 'NOERROR',
      truncated: true,
      edns: false,
      ednsUdpSize: null,
      clientIp: HOST,
      accountId: 'acct-1',
    });
    logged.length = 0;
    await udpExchange(port, encodeQuery({ name: 'HOME.dyn.example.net', type: 'A', edns: 2000 }));
    expect(logged[0]).toMatchObject({
      name: 'home.dyn.example.net',
      ednsUdpSize: 2000,
      accountId: 'acct-9',
      domain: 'home.dyn.example.net',
      transport: 'udp',
    });
  });
});
