import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

export interface DigAnswer {
  /** The response code dig printed (NOERROR, NXDOMAIN, REFUSED…). */
  status: string;
  /** The answer section's data, as `dig +short` would print it. */
  answers: string[];
  /** The header flags dig printed (qr, aa, tc, ...). */
  flags: string[];
  /** The answer section's records with their TTL and type. */
  records: { ttl: number; type: string; data: string }[];
}

const digArgs = (port: number, name: string, type: string, options: { tcp?: boolean }) => [
  '@127.0.0.1',
  '-p',
  String(port),
  '+time=2',
  '+tries=1',
  '+noall',
  '+comments',
  '+answer',
  options.tcp ? '+tcp' : '+notcp',
  name,
  type,
];

function parseDig(out: string): DigAnswer {
  const status = /status: ([A-Z]+)/.exec(out)?.[1];
  if (!status) throw new Error(`dig gave no status: ${out}`);
  const records = out
    .split('\n')
    .filter((l) => l && !l.startsWith(';'))
    .map((l) => l.split(/\s+/))
    .map((f) => ({ ttl: Number(f[1]), type: f[3], data: f.slice(4).join(' ') }));
  const flags = (/;; flags: ([a-z ]*);/.exec(out)?.[1] ?? '').split(' ').filter(Boolean);
  return { status, answers: records.map((r) => r.data), flags, records };
}

/** One query with Debian's `dig` to the service's DNS server on 127.0.0.1 (UDP unless `tcp`). */
export function dig(port: number, name: string, type: string, options: { tcp?: boolean } = {}): DigAnswer {
  return parseDig(execFileSync('dig', digArgs(port, name, type, options), { encoding: 'utf8' }));
}

/** dig() without blocking the event loop: for a service whose DNS runs on the test's own thread (DNS_THREAD=off). */
export async function digAsync(
  port: number,
  name: string,
  type: string,
  options: { tcp?: boolean } = {},
): Promise<DigAnswer> {
  const { stdout } = await execFileAsync('dig', digArgs(port, name, type, options), { encoding: 'utf8' });
  return parseDig(stdout);
}
