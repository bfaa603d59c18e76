/**
 * What the response-cache specs share (dns-response-cache, dns-udp-hit-cache): a query with
 * every bit a cached answer must echo or depend on, the answer the full path gives it computed
 * without the server, and one UDP exchange.
 */
import * as dgram from 'node:dgram';
import * as dnsPacket from 'dns-packet';
import type { ZoneIndex } from '../../libs/dns-server';
import { buildResponse, isInClass, parseQuery, udpLimit, EMPTY_BODY, RCODE } from '../../libs/dns-server/wire';

export interface CacheQuery {
  name: string;
  type: string;
  id?: number;
  /** EDNS UDP size; undefined for no OPT record. */
  edns?: number;
  dnssec?: boolean;
  ednsVersion?: number;
  rd?: boolean;
  cd?: boolean;
}

export function encodeCacheQuery({
  name,
  type,
  id = 1234,
  edns,
  dnssec,
  ednsVersion = 0,
  rd = true,
  cd = false,
}: CacheQuery): Buffer {
  const additionals: dnsPacket.Answer[] =
    edns === undefined
      ? []
      : [
          {
            type: 'OPT',
            name: '.',
            udpPayloadSize: edns,
            flags: dnssec ? dnsPacket.DNSSEC_OK : 0,
            extendedRcode: 0,
            ednsVersion,
            flag_do: !!dnssec,
            options: [],
          } as dnsPacket.Answer,
        ];
  const flags = (rd ? dnsPacket.RECURSION_DESIRED : 0) | (cd ? dnsPacket.CHECKING_DISABLED : 0);
  // dns-packet lowercases nothing: the name goes out with the case given.
  return dnsPacket.encode({
    type: 'query',
    id,
    flags,
    questions: [{ name, type: type as dnsPacket.RecordType }],
    additionals,
  });
}

/** What the full path answers to `msg`, computed here without the server. */
export function fullPathAnswer(index: ZoneIndex, msg: Buffer): Buffer {
  const parsed = parseQuery(msg);
  if (!parsed.ok) throw new Error('test queries are well formed');
  const q = parsed.query;
  const body = isInClass(q) ? index.answer(q.key, q.qtype).body : EMPTY_BODY(RCODE.REFUSED);
  return buildResponse(msg, q, body, udpLimit(q));
}

/** Sends `msg` to 127.0.0.1:`port` from a socket of its own and resolves with the first datagram back. */
export function udpExchange(port: number, msg: Buffer, timeoutMs = 1000): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = dgram.createSocket('udp4');
    const timer = setTimeout(() => {
      socket.close();
      reject(new Error('no UDP answer'));
    }, timeoutMs);
    socket.on('message', (b) => {
      clearTimeout(timer);
      socket.close();
      resolve(b);
    });
    socket.send(msg, port, '127.0.0.1');
  });
}
