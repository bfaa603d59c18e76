import * as dnsPacket from 'dns-packet';
import { RCODE, buildResponse, errorResponse, parseQuery, udpLimit, type Body, type Query } from './wire';

const query = (extra: Partial<dnsPacket.Packet> = {}): Buffer =>
  dnsPacket.encode({
    type: 'query',
    id: 4242,
    flags: dnsPacket.RECURSION_DESIRED,
    questions: [{ type: 'A', name: 'WWW.Example.com' }],
    ...extra,
  });
const withOpt = (udpPayloadSize: number, flags = 0, ednsVersion = 0) =>
  query({
    additionals: [
      { type: 'OPT', name: '.', udpPayloadSize, flags, ednsVersion, extendedRcode: 0, flag_do: false, options: [] },
    ],
  });

const parsed = (buf: Buffer): Query => {
  const r = parseQuery(buf);
  if (!r.ok) throw new Error(`not parsed: ${JSON.stringify(r)}`);
  return r.query;
};

describe('parseQuery', () => {
  it('reads the question as a lowercased wire key and EDNS fields', () => {
    const q = parsed(withOpt(4096, dnsPacket.DNSSEC_OK));
    expect(q).toMatchObject({
      id: 4242,
      qtype: 1,
      qclass: 1,
      edns: true,
      udpSize: 4096,
      dnssecOk: true,
      ednsVersion: 0,
    });
    expect(q.key).toBe('\x03www\x07example\x03com\x00');
    expect(udpLimit(q)).toBe(1232);
    expect(udpLimit(parsed(withOpt(100)))).toBe(512);
    expect(udpLimit(parsed(query()))).toBe(512);
  });

  it('drops what it cannot answer', () => {
    expect(parseQuery(Buffer.alloc(11))).toEqual({ ok: false, action: 'drop' });
    const response = query();
    response.writeUInt16BE(response.readUInt16BE(2) | 0x8000, 2);
    expect(parseQuery(response)).toEqual({ ok: false, action: 'drop' });
  });

  const formerr = (buf: Buffer) =>
    expect(parseQuery(buf)).toMatchObject({ ok: false, action: 'error', rcode: RCODE.FORMERR, id: 4242 });

  it('answers FORMERR for a readable header with a bad body', () => {
    formerr(dnsPacket.encode({ type: 'query', id: 4242, questions: [] }));
    formerr(
      dnsPacket.encode({
        type: 'query',
        id: 4242,
        questions: [
          { type: 'A', name: 'a.test' },
          { type: 'A', name: 'b.test' },
        ],
      }),
    );
    formerr(query().subarray(0, 20));
    const compressed = Buffer.from(query());
    compressed[12] = 0xc0;
    compressed[13] = 0x0c;
    formerr(compressed);
    const twoOpts = withOpt(1232);
    const opt = twoOpts.subarray(twoOpts.length - 11);
    const doubled = Buffer.concat([twoOpts, opt]);
    doubled.writeUInt16BE(2, 10);
    formerr(doubled);
    formerr(withOpt(1232).subarray(0, -3));
    formerr(query({ questions: [{ type: 'OPT', name: 'a.test' }] }));
  });

  it('answers NOTIMP for other opcodes', () => {
    const notify = query();
    notify.writeUInt16BE((notify.readUInt16BE(2) & ~0x7800) | (4 << 11), 2);
    expect(parseQuery(notify)).toMatchObject({ ok: false, action: 'error', rcode: RCODE.NOTIMP });
  });
});

describe('buildResponse', () => {
  const rr = (n: number) => Buffer.alloc(n, 1);
  const body: Body = {
    rcode: RCODE.NOERROR,
    authoritative: true,
    bytes: Buffer.concat([rr(200), rr(200), rr(100)]),
    counts: [2, 0, 1],
    rrsets: [
      { end: 200, section: 0, count: 1 },
      { end: 400, section: 0, count: 1 },
      { end: 500, section: 2, count: 1 },
    ],
  };

  it('copies the question verbatim and sets AA, RD and the counts', () => {
    const req = query();
    const out = buildResponse(req, parsed(req), body, 0xffff);
    const headerAndQuestion = Buffer.from(out.subarray(0, req.length)).fill(0, 6, 12);
    const decoded = dnsPacket.decode(headerAndQuestion);
    expect(out.length).toBe(req.length + 500);
    expect(decoded.questions).toEqual([{ name: 'WWW.Example.com', type: 'A', class: 'IN' }]);
    expect(decoded).toMatchObject({ id: 4242, flag_qr: true, flag_aa: true, flag_rd: true, flag_tc: false });
    expect([out.readUInt16BE(6), out.readUInt16BE(8), out.readUInt16BE(10)]).toEqual([2, 0, 1]);
  });

  it('drops additional data silently and answer RRsets with TC, never exceeding the limit', () => {
    const req = query();
    const q = parsed(req);
    const noGlue = buildResponse(req, q, body, req.length + 450);
    expect(noGlue.length).toBe(req.length + 400);
    expect(noGlue[2] & 0x02).toBe(0);
    const truncated = buildResponse(req, q, body, req.length + 300);
    expect(truncated.length).toBe(req.length + 200);
    expect(truncated[2] & 0x02).toBe(0x02);
    expect(truncated.readUInt16BE(6)).toBe(1);
  });

  it('answers BADVERS to EDNS versions other than 0', () => {
    const req = withOpt(1232, 0, 1);
    const out = dnsPacket.decode(buildResponse(req, parsed(req), body, 1232));
    expect(out.answers).toEqual([]);
    expect(out.additionals![0]).toMatchObject({ type: 'OPT', extendedRcode: 1 });
  });

  it('error responses are never larger than the request', () => {
    const req = query();
    const out = errorResponse(req, 4242, req.readUInt16BE(2), RCODE.FORMERR, 0);
    expect(out.length).toBe(12);
    expect(dnsPacket.decode(out)).toMatchObject({ id: 4242, rcode: 'FORMERR', questions: [] });
  });
});
