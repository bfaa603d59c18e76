import * as dgram from 'node:dgram';
import * as net from 'node:net';
import * as dnsPacket from 'dns-packet';

/** One query as a test sends it: transport, client family, EDNS and DO chosen per query. */
export interface WireQuery {
  name: string;
  type: dnsPacket.RecordType;
  transport: 'udp' | 'tcp';
  /** The server address the client talks to, so the client's address is of that family. */
  host: '127.0.0.1' | '::1';
  edns: boolean;
  dnssecOk: boolean;
}

export type Decoded = dnsPacket.DecodedPacket & { rcode: string };

let nextId = 100;

export function encodeQuery(q: WireQuery, id: number): Buffer {
  const additionals: dnsPacket.Answer[] = q.edns
    ? [
        {
          type: 'OPT',
          name: '.',
          udpPayloadSize: 1232,
          flags: q.dnssecOk ? dnsPacket.DNSSEC_OK : 0,
        } as dnsPacket.Answer,
      ]
    : [];
  return dnsPacket.encode({
    type: 'query',
    id,
    flags: dnsPacket.RECURSION_DESIRED,
    questions: [{ name: q.name, type: q.type }],
    additionals,
  });
}

/** Sends one query as raw packets (UDP datagram or length-framed TCP) and decodes the answer. */
export function exchange(port: number, q: WireQuery, timeoutMs = 2000): Promise<Decoded> {
  const id = (nextId = (nextId % 65000) + 1);
  const msg = encodeQuery(q, id);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`no answer for ${q.name} ${q.type} over ${q.transport} to ${q.host}`));
    }, timeoutMs);
    let cleanup = () => clearTimeout(timer);
    const done = (b: Buffer) => {
      cleanup();
      resolve(dnsPacket.decode(b) as Decoded);
    };
    if (q.transport === 'udp') {
      const socket = dgram.createSocket(q.host === '::1' ? 'udp6' : 'udp4');
      cleanup = () => {
        clearTimeout(timer);
        socket.close();
      };
      socket.on('message', done);
      socket.send(msg, port, q.host);
    } else {
      const socket = net.connect(port, q.host);
      let buf = Buffer.alloc(0);
      cleanup = () => {
        clearTimeout(timer);
        socket.destroy();
      };
      socket.on('data', (d) => {
        buf = Buffer.concat([buf, d]);
        if (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) done(buf.subarray(2, 2 + buf.readUInt16BE(0)));
      });
      socket.on('error', reject);
      const framed = Buffer.alloc(2 + msg.length);
      framed.writeUInt16BE(msg.length, 0);
      msg.copy(framed, 2);
      socket.write(framed);
    }
  });
}
