import { createSocket } from 'node:dgram';
import * as dnsPacket from 'dns-packet';
import type { Answer, Packet, RecordType } from 'dns-packet';

export type DnsResponse = Packet & { rcode?: string };

let nextId = 1;

/** One real DNS query over UDP to 127.0.0.1:port, decoded with dns-packet. */
export function queryDns(port: number, name: string, type: RecordType, timeoutMs = 2000): Promise<DnsResponse> {
  const id = (nextId = (nextId % 65535) + 1);
  const request = dnsPacket.encode({
    type: 'query',
    id,
    flags: dnsPacket.RECURSION_DESIRED,
    questions: [{ type, name }],
  });
  const socket = createSocket('udp4');
  return new Promise<DnsResponse>((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.close();
      reject(new Error(`no DNS answer for ${name} ${type} within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.on('message', (message) => {
      const response = dnsPacket.decode(message) as DnsResponse;
      if (response.id !== id) return;
      clearTimeout(timer);
      socket.close();
      resolve(response);
    });
    socket.send(request, port, '127.0.0.1');
  });
}

/** The data of the answers of one type (addresses, names, TXT joined as text). */
export function answerData(response: DnsResponse, type: string): string[] {
  return (response.answers ?? [])
    .filter((a: Answer) => a.type === type)
    .map((a: Answer) => {
      const data = (a as { data: unknown }).data;
      if (Array.isArray(data)) return data.map((d) => d.toString()).join('');
      return typeof data === 'object' ? JSON.stringify(data) : String(data);
    });
}

/**
 * Polls until the server answers `name`/`type` with exactly `expected` (sorted), or
 * fails after `timeoutMs`; returns how long it took, for the "served within 1 s" checks.
 */
export async function waitForDns(
  port: number,
  name: string,
  type: RecordType,
  expected: string[],
  timeoutMs = 1000,
): Promise<number> {
  const started = Date.now();
  const want = JSON.stringify([...expected].sort());
  for (;;) {
    const response = await queryDns(port, name, type);
    const last = JSON.stringify(answerData(response, type).sort());
    if (last === want) return Date.now() - started;
    if (Date.now() - started > timeoutMs)
      throw new Error(`${name} ${type}: expected ${want} within ${timeoutMs} ms, last saw ${last} (${response.rcode})`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
