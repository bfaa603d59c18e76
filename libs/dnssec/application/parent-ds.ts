import { Inject, Injectable } from '@nestjs/common';
import { createSocket } from 'node:dgram';
import { getServers } from 'node:dns';
import * as dnsPacket from 'dns-packet';
import { APP_CONFIG, AppConfig } from '../../shared/config';

const TIMEOUT_MS = 2000;

/**
 * The parent's DS RRset of a zone as the world sees it, through VERIFY_RESOLVER (or the
 * system's first resolver): the key tags it names. Node's resolver has no DS lookup, so
 * this is one recursive query over UDP with dns-packet.
 */
@Injectable()
export class ParentDsLookup {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /** Key tags of the DS records at the parent ([] when there are none), null when the lookup failed. */
  async keyTags(zone: string): Promise<number[] | null> {
    const server = this.config.verifyResolver ?? getServers()[0];
    if (!server) return null;
    const [host, port] = splitHostPort(server);
    const id = Math.floor(Math.random() * 0xffff);
    const query = dnsPacket.encode({
      type: 'query',
      id,
      flags: dnsPacket.RECURSION_DESIRED,
      questions: [{ type: 'DS', name: zone }],
      additionals: [{ type: 'OPT', name: '.', udpPayloadSize: 1232, flags: dnsPacket.DNSSEC_OK } as dnsPacket.Answer],
    });
    const socket = createSocket(host.includes(':') ? 'udp6' : 'udp4');
    try {
      const answer = await new Promise<dnsPacket.Packet | null>((resolve) => {
        const timer = setTimeout(() => resolve(null), TIMEOUT_MS);
        socket.on('error', () => resolve(null));
        socket.on('message', (msg) => {
          try {
            const packet = dnsPacket.decode(msg);
            if (packet.id !== id) return;
            clearTimeout(timer);
            resolve(packet);
          } catch {
            // not a DNS answer: wait for the real one or the timeout
          }
        });
        socket.send(query, port, host);
      });
      const rcode = (answer as { rcode?: string } | null)?.rcode;
      if (!answer || (rcode !== 'NOERROR' && rcode !== 'NXDOMAIN')) return null;
      const tags = (answer.answers ?? [])
        .filter((a) => a.type === 'DS' && a.name.toLowerCase() === zone)
        .map((a) => ((a as { data: dnsPacket.DsData }).data as dnsPacket.DsData).keyTag);
      return [...new Set(tags)].sort((a, b) => a - b);
    } finally {
      socket.close();
    }
  }
}

function splitHostPort(server: string): [string, number] {
  const bracketed = /^\[(.+)\]:(\d+)$/.exec(server);
  if (bracketed) return [bracketed[1], Number(bracketed[2])];
  const v4 = /^([^:]+):(\d+)$/.exec(server);
  if (v4) return [v4[1], Number(v4[2])];
  return [server, 53];
}
