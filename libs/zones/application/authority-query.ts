import { createSocket } from 'node:dgram';
import { isIPv6 } from 'node:net';
import * as dnsPacket from 'dns-packet';

export interface AuthorityAnswer {
  authoritative: boolean;
  rcode: string;
  /** NS targets for the name: from the answer (authoritative) or the authority section (a referral). */
  nameservers: string[];
}

const norm = (n: string) => n.toLowerCase().replace(/\.$/, '');

/**
 * One non-recursive (RD=0) NS question to one server over UDP, the way a resolver asks a
 * parent zone's server for a delegation. dns-packet encodes and decodes; the answer must
 * come from the address asked and carry the question's id.
 */
export function askNs(address: string, port: number, name: string, timeoutMs = 2000): Promise<AuthorityAnswer> {
  const id = Math.floor(Math.random() * 0xffff);
  const query = dnsPacket.encode({
    type: 'query',
    id,
    flags: 0, // RD clear: the server answers from its own data, never by recursion
    questions: [{ type: 'NS', name }],
    additionals: [{ type: 'OPT', name: '.', udpPayloadSize: 1232 } as dnsPacket.Answer],
  });
  const socket = createSocket(isIPv6(address) ? 'udp6' : 'udp4');
  return new Promise<AuthorityAnswer>((resolve, reject) => {
    const timer = setTimeout(() => finish(new Error(`no answer from ${address}:${port}`)), timeoutMs);
    const finish = (error: Error | null, answer?: AuthorityAnswer) => {
      clearTimeout(timer);
      socket.close();
      if (error) reject(error);
      else resolve(answer!);
    };
    socket.on('error', (e) => finish(e));
    socket.on('message', (msg, from) => {
      if (from.address !== address) return;
      // The decoder also sets flag_aa and rcode, which its type definitions leave out.
      let packet: dnsPacket.Packet & { flag_aa?: boolean; rcode?: string };
      try {
        packet = dnsPacket.decode(msg);
      } catch {
        return;
      }
      if (packet.id !== id) return;
      const authoritative = Boolean(packet.flag_aa);
      const section = authoritative ? (packet.answers ?? []) : (packet.authorities ?? []);
      const nameservers = section
        .filter((r) => r.type === 'NS' && norm(r.name) === norm(name))
        .map((r) => norm((r as { data: string }).data));
      finish(null, { authoritative, rcode: packet.rcode ?? 'NOERROR', nameservers });
    });
    socket.send(query, port, address);
  });
}
