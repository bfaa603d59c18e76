import { createSocket, type Socket } from 'node:dgram';
import { MessageChannel } from 'node:worker_threads';
import * as dnsPacket from 'dns-packet';
import { ZoneIndex, type ZoneDefinition } from '../dns-server';
import { IndexChangeLog, indexSnapshot } from '../dns-server/index-replica';
import { DnsRole, SENT } from './dns-role';

const ZONE = 'dyn.example.net';
const HOST = `host.${ZONE}`;

const zone = (serial: number): ZoneDefinition => ({
  name: ZONE,
  ownerAccountId: null,
  soa: { mname: 'ns1.example.net', rname: `hostmaster.${ZONE}`, serial, refresh: 1, retry: 1, expire: 1, minimum: 60 },
  ttl: 3600,
  nameservers: ['ns1.example.net'],
});

/**
 * A UDP client whose send() reaches the server's socket before it returns: node:dgram tries the
 * send at once (uv_udp_try_send) on a bound socket, and the lookup of a literal address is
 * given synchronously here, so nothing is left for a later turn of the loop.
 */
async function client(): Promise<{ socket: Socket; answers: dnsPacket.Packet[] }> {
  const socket = createSocket({
    type: 'udp4',
    lookup: ((address: string, _o: unknown, cb: (e: null, a: string, f: number) => void) =>
      cb(null, address, 4)) as never,
  });
  const answers: dnsPacket.Packet[] = [];
  socket.on('message', (m) => answers.push(dnsPacket.decode(m)));
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return { socket, answers };
}

const query = (id: number) => dnsPacket.encode({ type: 'query', id, questions: [{ type: 'A', name: HOST }] });
const addresses = (p: dnsPacket.Packet) =>
  (p.answers ?? []).filter((a) => a.type === 'A').map((a) => (a as { data: string }).data);

async function answerTo(answers: dnsPacket.Packet[], id: number): Promise<dnsPacket.Packet> {
  for (let i = 0; i < 400; i++) {
    const found = answers.find((a) => a.id === id);
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`no answer to query ${id}`);
}

/**
 * A DNS thread that installs its leader's batches (decision 0112) answers a query from every
 * batch its leader sent before the query was read (decision 0120). Here the test is the leader,
 * in the follower's own thread: the query reaches the follower's socket, then the batch is sent,
 * both before the follower's loop turns. Its loop sees the socket ready first, as a thread that
 * was descheduled or busy while both came does; before 0120 it answered from the state before
 * the batch, and the bench's client had to ask again.
 */
describe('DnsRole follower', () => {
  let follower: DnsRole;
  let leader: ZoneIndex;
  let changes: IndexChangeLog;
  let channel: MessageChannel;
  const shipped = new Int32Array(new SharedArrayBuffer(4));
  let port: number;

  const ship = () => {
    const batch = changes.drain();
    if (!batch) throw new Error('nothing to ship');
    channel.port1.postMessage(batch, [batch]);
    Atomics.add(shipped, SENT, 1);
  };

  beforeAll(async () => {
    leader = new ZoneIndex();
    changes = new IndexChangeLog(leader);
    leader.putZone(zone(1));
    leader.setRRset(ZONE, 'host', 'A', 60, ['192.0.2.1']);
    changes.discard();
    channel = new MessageChannel();
    follower = new DnsRole(
      null,
      {
        dnsHost: '127.0.0.1',
        dnsPort: 0,
        ddnsZones: [],
        nameservers: ['ns1.example.net'],
        udpOnly: true,
        fold: 'follower',
      },
      undefined,
      () => undefined,
    );
    follower.follow({ port: channel.port2, shipped });
    channel.port1.postMessage(indexSnapshot(leader));
    Atomics.add(shipped, SENT, 1);
    port = await follower.start();
  });
  afterAll(async () => {
    await follower.stop();
    channel.port1.close();
  });

  it('answers a query read after its leader sent a change from the change, though the message waits', async () => {
    const { socket, answers } = await client();
    try {
      socket.send(query(1), port, '127.0.0.1');
      expect(addresses(await answerTo(answers, 1))).toEqual(['192.0.2.1']);
      // The same question again: the first answer is kept (the hit cache), the change must not be answered from it.
      for (let round = 2; round < 12; round++) {
        const address = `192.0.2.${round}`;
        // A quiet moment first, so the loop's earlier wake-ups are behind it: then the socket is ready
        // before the message, as when the thread comes back to both.
        await new Promise((resolve) => setTimeout(resolve, 20));
        socket.send(query(round), port, '127.0.0.1');
        leader.setRRset(ZONE, 'host', 'A', 60, [address]);
        leader.putZone(zone(round));
        ship();
        const answer = await answerTo(answers, round);
        expect(addresses(answer)).toEqual([address]);
      }
    } finally {
      socket.close();
    }
  });
});
