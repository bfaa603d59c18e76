/**
 * Cache hits answered by the udp-batch addon (decision 0116), over real UDP sockets: a question
 * answered twice (the second time from the JS response cache) is kept by the addon, which
 * answers it from then on during recv. Every such answer must be byte for byte what the full
 * path (parseQuery, the index, writeResponse) gives that very query, with its ID, RD/CD, the
 * name's case as sent, EDNS variant and truncation; a change to the index must be seen by the
 * next query; and every answer must still reach the tally and the query log, with the facts
 * the JS cache would have given.
 */
import * as dnsPacket from 'dns-packet';
import {
  DnsServer,
  ZoneIndex,
  type AnsweredQuery,
  type FieldQuerySink,
  type LoggedAnswer,
  type AnswerTally,
} from '../libs/dns-server';
import { RCODE } from '../libs/dns-server/wire';
import {
  encodeCacheQuery as encodeQuery,
  fullPathAnswer,
  udpExchange,
  type CacheQuery as Q,
} from './support/cached-answers';
import { startWith, testIndex, testZone } from './support/dns-test-zone';

const HOST = '127.0.0.1';
const onLinux = process.platform === 'linux' ? describe : describe.skip;

/** One call of the field sink, as the query log would store it. */
interface Logged {
  how: 'udp' | 'cached' | 'number';
  accountId: string | null;
  name: string;
  type: string;
  rcode: string | number;
  clientIp: string;
  dnssecOk: boolean;
  edns: boolean;
}

/**
 * A field sink (the query-log channel's interface) that keeps what it is given, and numbers
 * cached answers as the channel does (a number is valid in its epoch only).
 */
class RecordingSink implements FieldQuerySink {
  readonly calls: Logged[] = [];
  epoch = 1;
  private readonly numbered: Logged[] = [];
  record(q: AnsweredQuery): void {
    throw new Error(`UDP answers go by field, not as objects (${q.name})`);
  }
  recordUdp(
    _timestamp: number,
    accountId: string,
    _domain: string,
    name: string,
    type: string,
    rcode: string,
    clientIp: string,
    dnssecOk: boolean,
    edns: boolean,
  ): void {
    this.calls.push({ how: 'udp', accountId, name, type, rcode, clientIp, dnssecOk, edns });
  }
  recordCachedUdp(_timestamp: number, answer: LoggedAnswer, clientIp: string, dnssecOk: boolean, edns: boolean): void {
    const { accountId, name, type, rcode } = answer;
    const call: Logged = { how: 'cached', accountId, name, type, rcode, clientIp, dnssecOk, edns };
    this.calls.push(call);
    if (answer.logNameEpoch === this.epoch) return;
    answer.logNameId = this.numbered.length;
    answer.logNameEpoch = this.epoch;
    this.numbered.push(call);
  }
  recordCachedUdpByNumber(
    _timestamp: number,
    id: number,
    epoch: number,
    clientIp: string,
    dnssecOk: boolean,
    edns: boolean,
  ): boolean {
    if (epoch !== this.epoch) return false;
    this.calls.push({ ...this.numbered[id], how: 'number', clientIp, dnssecOk, edns });
    return true;
  }
  udpBatchSent(): void {}
}

onLinux('UDP cache hits answered by the addon', () => {
  let index: ZoneIndex;
  let server: DnsServer;
  let port: number;
  let sink: RecordingSink;
  const counted: number[] = [];
  const tally: AnswerTally = { count: (_t, rcode) => void counted.push(rcode), observe: () => undefined };

  beforeEach(async () => {
    index = testIndex((i) => {
      // About 800 bytes of TXT: fits 1232 bytes, not 512, so the EDNS size decides truncation.
      i.setRRset(
        'example.com',
        'mid',
        'TXT',
        300,
        [0, 1, 2, 3].map((n) => `"${n}${'m'.repeat(190)}"`),
      );
    });
    sink = new RecordingSink();
    counted.length = 0;
    server = new DnsServer({ host: HOST, port: 0, index, sink, tally, udpHitCache: true });
    port = await startWith(server, undefined);
    expect(server.udpIo).toBe('batch');
  });

  afterEach(() => server.stop());

  /** Asks `times` times with new IDs; every answer is checked against the full path. */
  async function ask(q: Q, times: number): Promise<Buffer[]> {
    const answers: Buffer[] = [];
    for (let n = 0; n < times; n++) {
      const msg = encodeQuery({ ...q, id: 1000 + n });
      const answer = await udpExchange(port, msg);
      expect(answer).toEqual(fullPathAnswer(index, msg));
      answers.push(answer);
    }
    return answers;
  }

  it('answers the third sight of a question itself, byte for byte the full path', async () => {
    const questions: Q[] = [
      { name: 'www.example.com', type: 'A', edns: 1232 },
      { name: 'alias.example.com', type: 'A' },
      { name: 'missing.example.com', type: 'A', edns: 1232 },
      { name: 'www.example.com', type: 'AAAA', edns: 1232, dnssec: true },
      { name: 'elsewhere.test', type: 'A' },
    ];
    for (const q of questions) {
      const before = server.udpAnswersBelow;
      const stored = server.cachedResponses;
      await ask(q, 4);
      // First the full way, then the JS cache, then twice the addon.
      expect(server.udpAnswersBelow - before).toBe(2);
      expect(server.cachedResponses).toBe(stored + 1);
    }
  });

  it('echoes the case of the name as sent (0x20) and the RD/CD bits of each query', async () => {
    await ask({ name: 'www.example.com', type: 'A', edns: 1232 }, 2);
    const before = server.udpAnswersBelow;
    const variants: Q[] = [
      { name: 'WwW.ExAmPlE.cOm', type: 'A', edns: 1232 },
      { name: 'WWW.EXAMPLE.COM', type: 'A', edns: 1232, rd: false, cd: true },
      { name: 'www.example.com', type: 'A', edns: 1232, rd: false },
      { name: 'www.EXAMPLE.com', type: 'A', edns: 1232, cd: true },
    ];
    for (const q of variants) {
      const [answer] = await ask(q, 1);
      expect(answer.subarray(12, 12 + 4).toString('latin1')).toBe(`\x03${q.name.slice(0, 3)}`);
    }
    expect(server.udpAnswersBelow - before).toBe(variants.length);
  });

  it('keeps EDNS variants apart: truncation by UDP size, DO, no OPT', async () => {
    // Largest first, so a wrong hit would hand the 1232-byte answer to a 512-byte client.
    const variants: Q[] = [
      { name: 'mid.example.com', type: 'TXT', edns: 1232 },
      { name: 'mid.example.com', type: 'TXT', edns: 4096, dnssec: true },
      { name: 'mid.example.com', type: 'TXT', edns: 512 },
      { name: 'mid.example.com', type: 'TXT' },
      { name: 'mid.example.com', type: 'TXT', edns: 1232, dnssec: true },
    ];
    for (const q of variants) await ask(q, 2);
    const before = server.udpAnswersBelow;
    const truncated: boolean[] = [];
    for (const q of variants) {
      const [answer] = await ask(q, 1);
      truncated.push((answer[2] & 0x02) !== 0);
    }
    expect(truncated).toEqual([false, false, true, true, false]);
    expect(server.udpAnswersBelow - before).toBe(variants.length);
  });

  it('sees a change to the index at the next query', async () => {
    const home = { name: 'home.dyn.example.net', type: 'A' };
    await ask(home, 3);
    const before = server.udpAnswersBelow;
    index.setRRset('dyn.example.net', 'home', 'A', 60, ['203.0.113.5']);
    const [changed] = await ask(home, 1);
    expect(dnsPacket.decode(changed).answers?.map((a) => ('data' in a ? a.data : null))).toEqual(['203.0.113.5']);
    expect(server.udpAnswersBelow).toBe(before);
    // The changed answer was the full path's; the JS cache's next, then the addon's.
    await ask(home, 3);
    expect(server.udpAnswersBelow).toBe(before + 2);
    index.removeRRset('dyn.example.net', 'home', 'A');
    const [gone] = await ask(home, 1);
    expect((dnsPacket.decode(gone) as dnsPacket.DecodedPacket & { rcode: string }).rcode).toBe('NXDOMAIN');
    // A new zone can take over names answered before.
    await ask({ name: 'x.elsewhere.test', type: 'A' }, 3);
    index.putZone(testZone('elsewhere.test', 'acct-2'));
    index.setRRset('elsewhere.test', 'x', 'A', 60, ['192.0.2.44']);
    const [taken] = await ask({ name: 'x.elsewhere.test', type: 'A' }, 1);
    expect(dnsPacket.decode(taken).answers?.map((a) => ('data' in a ? a.data : null))).toEqual(['192.0.2.44']);
  });

  it('counts and logs every answer it gives, with the facts of the JS cache', async () => {
    const questions: Q[] = [
      { name: 'www.example.com', type: 'AAAA', edns: 1232, dnssec: true },
      { name: 'HOME.dyn.example.net', type: 'A', edns: 4096 },
      { name: 'nothere.dyn.example.net', type: 'A' },
      { name: 'mid.example.com', type: 'TXT' },
    ];
    for (const q of questions) await ask(q, 4);
    expect(server.udpAnswersBelow).toBe(2 * questions.length);
    expect(counted).toHaveLength(4 * questions.length);
    // nothere.dyn.example.net belongs to no account: counted, not logged.
    expect(sink.calls).toHaveLength(4 * 3);
    for (let q = 0; q < 3; q++) {
      const [full, ...cached] = sink.calls.slice(4 * q, 4 * q + 4);
      expect(full.how).toBe('udp');
      for (const c of cached) expect({ ...c, how: 'udp', rcode: full.rcode }).toEqual(full);
      // The JS cache's hit gets the answer numbered; the addon's are logged by that number.
      expect(cached.map((c) => c.how)).toEqual(['cached', 'number', 'number']);
    }
    expect(sink.calls[0]).toMatchObject({ name: 'www.example.com', type: 'AAAA', dnssecOk: true, edns: true });
    expect(sink.calls[4]).toMatchObject({ name: 'home.dyn.example.net', accountId: 'acct-9', dnssecOk: false });
    expect(sink.calls[8]).toMatchObject({ name: 'mid.example.com', type: 'TXT', edns: false, clientIp: HOST });
    expect(counted.slice(8, 12)).toEqual([RCODE.NXDOMAIN, RCODE.NXDOMAIN, RCODE.NXDOMAIN, RCODE.NXDOMAIN]);
  });

  it('logs from the answer again when the log numbers anew, then by the new number', async () => {
    const q: Q = { name: 'www.example.com', type: 'A', edns: 1232 };
    await ask(q, 3);
    sink.epoch++;
    sink.calls.length = 0;
    const before = server.udpAnswersBelow;
    await ask(q, 3);
    expect(server.udpAnswersBelow - before).toBe(3);
    expect(sink.calls.map((c) => c.how)).toEqual(['cached', 'number', 'number']);
    expect(sink.calls.map((c) => c.name)).toEqual(['www.example.com', 'www.example.com', 'www.example.com']);
  });

  it('is off with udpHitCache false: every answer then comes from JS', async () => {
    await server.stop();
    server = new DnsServer({ host: HOST, port: 0, index, sink, tally, udpHitCache: false });
    port = await startWith(server, undefined);
    await ask({ name: 'www.example.com', type: 'A', edns: 1232 }, 4);
    expect(server.udpAnswersBelow).toBe(0);
  });
});
