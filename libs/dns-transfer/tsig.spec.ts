import { execFile } from 'node:child_process';
import * as dgram from 'node:dgram';
import { promisify } from 'node:util';
import * as dnsPacket from 'dns-packet';
import { readMessage } from './message';
import { findTsig, parseKeySpec, signMessage, TSIG_ERROR, TsigKey, TsigStream, verifyTsig } from './tsig';

const run = promisify(execFile);
const SECRET = Buffer.from('0123456789abcdef0123456789abcdef').toString('base64');
const key = (algorithm: TsigKey['algorithm'] = 'hmac-sha256', name = 'xfr-key.example'): TsigKey => ({
  name,
  algorithm,
  secret: Buffer.from(SECRET, 'base64'),
});
const query = (id = 7) =>
  dnsPacket.encode({ type: 'query', id, flags: 0, questions: [{ name: 'example.com', type: 'SOA' }] });
const NOW = 1_800_000_000;

describe('TSIG (RFC 8945)', () => {
  it('verifies what it signs, and tells a wrong key, signature and time apart', () => {
    const signed = signMessage(query(), key(), { nowSeconds: NOW }).message;
    const tsig = findTsig(signed, readMessage(signed))!;
    expect(tsig.keyName).toBe('xfr-key.example');
    expect(verifyTsig(signed, tsig, key(), NOW)).toMatchObject({ ok: true });
    expect(verifyTsig(signed, tsig, key(), NOW + 299)).toMatchObject({ ok: true });
    expect(verifyTsig(signed, tsig, key(), NOW + 301)).toMatchObject({ ok: false, error: TSIG_ERROR.BADTIME });
    expect(verifyTsig(signed, tsig, key('hmac-sha512'), NOW)).toMatchObject({ ok: false, error: TSIG_ERROR.BADKEY });
    expect(verifyTsig(signed, tsig, undefined, NOW)).toMatchObject({ ok: false, error: TSIG_ERROR.BADKEY });
    const other = { ...key(), secret: Buffer.alloc(32, 1) };
    expect(verifyTsig(signed, tsig, other, NOW)).toMatchObject({ ok: false, error: TSIG_ERROR.BADSIG });
    const tampered = Buffer.from(signed);
    tampered[3] ^= 0x01; // a flag bit: covered by the MAC
    expect(verifyTsig(tampered, findTsig(tampered, readMessage(tampered))!, key(), NOW)).toMatchObject({
      ok: false,
      error: TSIG_ERROR.BADSIG,
    });
  });

  it('refuses a TSIG that is not the last record', () => {
    const signed = signMessage(query(), key(), { nowSeconds: NOW }).message;
    const withExtra = Buffer.concat([signed, Buffer.from([0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 4, 1, 2, 3, 4])]);
    withExtra.writeUInt16BE(2, 10);
    expect(() => findTsig(withExtra, readMessage(withExtra))).toThrow(/last record/);
  });

  it('chains the MACs of a multi-message answer', () => {
    const request = signMessage(query(), key(), { nowSeconds: NOW });
    const stream = new TsigStream(key(), request.mac, () => NOW);
    const first = stream.sign(query(1));
    const second = stream.sign(query(2));
    const firstTsig = findTsig(first, readMessage(first))!;
    expect(verifyTsig(first, firstTsig, key(), NOW, request.mac)).toMatchObject({ ok: true });
    // The second is over the first's MAC and the timers only, so a full verification fails.
    expect(verifyTsig(second, findTsig(second, readMessage(second))!, key(), NOW, request.mac)).toMatchObject({
      ok: false,
    });
  });

  it("signs a message given in parts (a transfer's header, question and shared body) as the whole", () => {
    const request = signMessage(query(), key(), { nowSeconds: NOW });
    const whole = new TsigStream(key(), request.mac, () => NOW);
    const parts = new TsigStream(key(), request.mac, () => NOW);
    for (const id of [1, 2]) {
      const msg = query(id);
      const record = parts.record([msg.subarray(0, 12), msg.subarray(12, 20), msg.subarray(20)]);
      const joined = Buffer.concat([msg, record]);
      joined.writeUInt16BE(1, 10);
      expect(joined).toEqual(whole.sign(msg));
    }
  });

  it('reads key specs as SECONDARY_TSIG_KEY and dig -y write them', () => {
    expect(parseKeySpec(`ns2-key.:hmac-sha512:${SECRET}`)).toEqual({
      name: 'ns2-key',
      algorithm: 'hmac-sha512',
      secret: Buffer.from(SECRET, 'base64'),
    });
    expect(parseKeySpec(`hmac-sha256:k:${SECRET}`).algorithm).toBe('hmac-sha256');
    expect(() => parseKeySpec('k:hmac-md5:abcd')).toThrow(/algorithm/);
  });

  describe.each(['hmac-sha256', 'hmac-sha512'] as const)('with BIND dig -y %s', (algorithm) => {
    let server: dgram.Socket;
    let port: number;
    let answerKey: TsigKey;
    const seen: Array<{ ok: boolean }> = [];

    beforeAll(async () => {
      server = dgram.createSocket('udp4');
      server.on('message', (msg, rinfo) => {
        const m = readMessage(msg);
        const tsig = findTsig(msg, m)!;
        const checked = verifyTsig(msg, tsig, key(algorithm), Math.floor(Date.now() / 1000));
        seen.push({ ok: checked.ok });
        const response = dnsPacket.encode({
          type: 'response',
          id: m.id,
          flags: dnsPacket.AUTHORITATIVE_ANSWER,
          questions: [{ name: 'www.example.com', type: 'A' }],
          answers: [{ name: 'www.example.com', type: 'A', ttl: 60, data: '192.0.2.1' }],
        });
        const signed = signMessage(response, answerKey, {
          nowSeconds: Math.floor(Date.now() / 1000),
          requestMac: tsig.mac,
        }).message;
        server.send(signed, rinfo.port, rinfo.address);
      });
      await new Promise<void>((resolve) => server.bind(0, '127.0.0.1', resolve));
      port = server.address().port;
    });
    afterAll(() => server.close());

    const dig = async () =>
      (
        await run(
          'dig',
          [
            '@127.0.0.1',
            '-p',
            String(port),
            '+time=2',
            '+tries=1',
            '-y',
            `${algorithm}:xfr-key.example:${SECRET}`,
            'www.example.com',
            'A',
          ],
          {
            encoding: 'utf8',
          },
        ).catch((e: { stdout: string }) => e)
      ).stdout;

    it('verifies the signature dig sends, and dig verifies ours', async () => {
      answerKey = key(algorithm);
      const out = await dig();
      expect(seen.pop()).toEqual({ ok: true });
      expect(out).toMatch(/status: NOERROR/);
      expect(out).toMatch(/192\.0\.2\.1/);
      expect(out).not.toMatch(/failure|Couldn't verify/i);
    });

    it('dig refuses a response signed with another secret', async () => {
      answerKey = { ...key(algorithm), secret: Buffer.alloc(32, 7) };
      expect(await dig()).toMatch(/tsig verify failure|Couldn't verify|BADSIG/i);
    });
  });
});
