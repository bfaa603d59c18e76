import { createSocket, RemoteInfo } from 'node:dgram';
import * as dnsPacket from 'dns-packet';

/** `192.0.2.10` → `10.2.0.192.in-addr.arpa` (IPv4 only: what the tests need). */
export const reverseName = (ip: string): string => `${ip.split('.').reverse().join('.')}.in-addr.arpa`;

/**
 * A resolver stand-in for tests that need reverse DNS: answers PTR questions from `ptr`
 * (address → names; NXDOMAIN otherwise) and relays every other question to `upstreamPort`
 * (the test's "world" DNS server, which has no PTR records), so one VERIFY_RESOLVER serves
 * both zone verification and sender identification.
 */
export async function startReverseDns(
  upstreamPort: number,
  ptr: Record<string, string[]>,
): Promise<{ port: number; stop(): Promise<void> }> {
  const byName = new Map(Object.entries(ptr).map(([ip, names]) => [reverseName(ip), names]));
  const socket = createSocket('udp4');
  socket.on('message', (msg: Buffer, from: RemoteInfo) => {
    let query: dnsPacket.Packet;
    try {
      query = dnsPacket.decode(msg);
    } catch {
      return;
    }
    const q = query.questions?.[0];
    if (q?.type === 'PTR') {
      const names = byName.get(q.name.toLowerCase());
      const answer = dnsPacket.encode({
        type: 'response',
        id: query.id,
        flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | (names ? 0 : 3),
        questions: query.questions,
        answers: (names ?? []).map((data) => ({
          type: 'PTR' as const,
          name: q.name,
          ttl: 60,
          class: 'IN' as const,
          data,
        })),
      });
      socket.send(answer, from.port, from.address);
      return;
    }
    const relay = createSocket('udp4');
    const timer = setTimeout(() => relay.close(), 3000);
    relay.on('message', (reply) => {
      clearTimeout(timer);
      socket.send(reply, from.port, from.address);
      relay.close();
    });
    relay.send(msg, upstreamPort, '127.0.0.1');
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    port: socket.address().port,
    stop: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
