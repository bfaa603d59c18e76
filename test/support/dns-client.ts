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
 * Agreeing answers in a row before a poll counts as settled: each query comes from a new
 * source port, so the kernel spreads them over the DNS threads (SO_REUSEPORT), and each
 * thread folds the events itself. One matching answer may come from a thread that is ahead
 * of another, and the next check of the same change would then race the slower one.
 */
const SETTLED_IN_A_ROW = 4;

/**
 * Polls `name`/`type` until `ok` holds for SETTLED_IN_A_ROW answers in a row, or fails after
 * `timeoutMs` with `describe` of the last answer; returns the time to the first of them.
 */
async function pollDns(
  port: number,
  name: string,
  type: RecordType,
  ok: (response: DnsResponse) => boolean,
  describe: (response: DnsResponse) => string,
  timeoutMs: number,
): Promise<number> {
  const started = Date.now();
  let firstOk: number | null = null;
  let inARow = 0;
  for (;;) {
    const response = await queryDns(port, name, type);
    if (ok(response)) {
      firstOk ??= Date.now() - started;
      if (++inARow >= SETTLED_IN_A_ROW) return firstOk;
      continue;
    }
    firstOk = null;
    inARow = 0;
    if (Date.now() - started > timeoutMs)
      throw new Error(`${name} ${type}: expected ${describe(response)} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * Polls until the server answers `name`/`type` with exactly `expected` (sorted), or
 * fails after `timeoutMs`; returns how long it took, for the "served within 1 s" checks.
 */
export function waitForDns(
  port: number,
  name: string,
  type: RecordType,
  expected: string[],
  timeoutMs = 1000,
): Promise<number> {
  const want = JSON.stringify([...expected].sort());
  const seen = (r: DnsResponse) => JSON.stringify(answerData(r, type).sort());
  return pollDns(
    port,
    name,
    type,
    (r) => seen(r) === want,
    (r) => `${want}, last saw ${seen(r)} (${r.rcode})`,
    timeoutMs,
  );
}

/** Polls until the server answers `name`/`type` with `rcode` (NXDOMAIN, REFUSED…). */
export function waitForRcode(
  port: number,
  name: string,
  type: RecordType,
  rcode: string,
  timeoutMs = 1000,
): Promise<number> {
  return pollDns(
    port,
    name,
    type,
    (r) => r.rcode === rcode,
    (r) => `${rcode}, last saw ${r.rcode}`,
    timeoutMs,
  );
}
