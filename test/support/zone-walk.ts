import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

async function dig(port: number, name: string, type: string): Promise<string[]> {
  const { stdout } = await run(
    'dig',
    [
      '@127.0.0.1',
      '-p',
      String(port),
      '+tcp',
      '+dnssec',
      '+norec',
      '+noall',
      '+answer',
      '+authority',
      '+nocrypto',
      name,
      type,
    ],
    {
      encoding: 'utf8',
    },
  );
  return stdout.split('\n').filter((l) => l && !l.startsWith(';'));
}

async function digFull(port: number, name: string, type: string): Promise<string[]> {
  const { stdout } = await run(
    'dig',
    [
      '@127.0.0.1',
      '-p',
      String(port),
      '+tcp',
      '+dnssec',
      '+norec',
      '+noall',
      '+answer',
      '+authority',
      '+additional',
      name,
      type,
    ],
    {
      encoding: 'utf8',
    },
  );
  return stdout.split('\n').filter((l) => l && !l.startsWith(';'));
}

/**
 * The signed zone as a master file, read back over DNS by walking its NSEC chain: at each
 * name, every type its NSEC lists is asked for with DO=1 (answers and, at a delegation, the
 * referral). What validators would see, in a form ldns-verify-zone and kzonecheck read.
 */
export async function walkSignedZone(port: number, zone: string): Promise<string> {
  const lines = new Set<string>();
  let name = `${zone}.`;
  for (let guard = 0; guard < 10_000; guard++) {
    const nsec = (await dig(port, name, 'NSEC'))
      .map((l) => l.split(/\s+/))
      .find((f) => f[3] === 'NSEC' && f[0].toLowerCase() === name.toLowerCase());
    if (!nsec) throw new Error(`no NSEC at ${name}`);
    const [, , , , next, ...types] = nsec;
    for (const type of types) {
      if (type === 'RRSIG') continue;
      for (const line of await digFull(port, name, type)) {
        const f = line.split(/\s+/);
        const owner = f[0].toLowerCase();
        // Glue of a delegation comes with its referral.
        const glue = type === 'NS' && (f[3] === 'A' || f[3] === 'AAAA') && owner.endsWith(`.${name.toLowerCase()}`);
        // Otherwise only records owned by this name (a referral's NS or DS, not the SOA of a negative answer).
        if (owner !== name.toLowerCase() && !glue) continue;
        if (f[3] === 'OPT') continue;
        if (f[3] === 'RRSIG' && f[4] !== type) continue;
        lines.add(line);
      }
    }
    if (next.toLowerCase() === `${zone}.`) break;
    name = next;
  }
  return [...lines].join('\n') + '\n';
}
