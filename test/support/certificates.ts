import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HttpClient } from './http-client';
import { ChallTestSrv } from './pebble';

/** Imports a zone and verifies it through the real DNS peer (pebble-challtestsrv as VERIFY_RESOLVER). */
export async function verifiedZone(http: HttpClient, world: ChallTestSrv, token: string, name: string): Promise<void> {
  const zone = await http.post('/zones', { name }, token);
  if (zone.status !== 201) throw new Error(`zone import: ${zone.status} ${zone.text}`);
  await world.setTxt(zone.body.verification.record_name, zone.body.verification.record_value);
  const verified = await http.post(`/zones/${name}/verify`, undefined, token);
  if (verified.body.status !== 'verified') throw new Error(`zone verify: ${verified.status} ${verified.text}`);
}

/** Polls a certificate until its status is one of `statuses`. */
export async function waitForStatus(
  http: HttpClient,
  token: string,
  id: string,
  statuses: string[],
  timeoutMs = 60_000,
): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await http.get(`/certificates/${id}`, token);
    if (statuses.includes(res.body?.status)) return res.body;
    if (Date.now() > deadline)
      throw new Error(`certificate ${id}: still ${res.body?.status} (${res.text}); wanted ${statuses.join('/')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Runs openssl on PEM inputs written to a temp dir; returns stdout (throws on a non-zero exit). */
export function openssl(args: (dir: string) => string[], files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'certs-openssl-'));
  try {
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    return execFileSync('openssl', args(dir), { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
