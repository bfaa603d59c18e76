import { execFileSync } from 'node:child_process';

export interface DigAnswer {
  /** The response code dig printed (NOERROR, NXDOMAIN, REFUSED…). */
  status: string;
  /** The answer section's data, as `dig +short` would print it. */
  answers: string[];
  /** The header flags dig printed (qr, aa, tc, ...). */
  flags: string[];
}

/** One query with Debian's `dig` to the service's DNS server on 127.0.0.1 (UDP unless `tcp`). */
export function dig(port: number, name: string, type: string, options: { tcp?: boolean } = {}): DigAnswer {
  const out = execFileSync('dig', ['@127.0.0.1', '-p', String(port), '+time=2', '+tries=1', '+noall', '+comments', '+answer', options.tcp ? '+tcp' : '+notcp', name, type], {
    encoding: 'utf8',
  });
  const status = /status: ([A-Z]+)/.exec(out)?.[1];
  if (!status) throw new Error(`dig gave no status: ${out}`);
  const answers = out
    .split('\n')
    .filter((l) => l && !l.startsWith(';'))
    .map((l) => l.split(/\s+/).slice(4).join(' '));
  const flags = (/;; flags: ([a-z ]*);/.exec(out)?.[1] ?? '').split(' ').filter(Boolean);
  return { status, answers, flags };
}
