/**
 * What encoding a report-row page costs in CPU, before and after the `rowcold` change,
 * measured side by side in this process on real page bodies (the service's own JSON): the
 * per-page steps the server runs besides reading and building it. Alternating rounds of each
 * step, CPU time from process.cpuUsage, so other load on the machine affects both alike.
 *  - first read, gzip client: SHA-1 ETag + gzip level 6 (before) / gzip level 3, ETag from its trailer (after)
 *  - first read, identity client: SHA-1 ETag (before) / CRC-32 ETag (after)
 *  - cached page, identity client: inflate the stored gzip (before, and after when its JSON is not kept) / the kept JSON (after)
 */
import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { freshRowPage } from '../../libs/email-auth-api/application/encoded-row-page';

const cpuMicros = (run: () => void): number => {
  const t = process.cpuUsage();
  run();
  const c = process.cpuUsage(t);
  return c.user + c.system;
};

export function encodingCosts(bodies: Buffer[], rounds = 5): string[] {
  const steps: Record<string, () => void> = {
    'first read, gzip client: SHA-1 + gzip level 6 (before)': () => {
      for (const b of bodies) {
        createHash('sha1').update(b).digest('base64url');
        gzipSync(b);
      }
    },
    'first read, gzip client: gzip level 3 + ETag from its trailer (after)': () => {
      for (const b of bodies) {
        const page = freshRowPage(b);
        page.gzip();
        void page.etag;
      }
    },
    'first read, identity client: SHA-1 ETag (before)': () => {
      for (const b of bodies) createHash('sha1').update(b).digest('base64url');
    },
    'first read, identity client: CRC-32 ETag (after)': () => {
      for (const b of bodies) void freshRowPage(b).etag;
    },
  };
  const level6 = bodies.map((b) => gzipSync(b));
  const level3 = bodies.map((b) => freshRowPage(b).gzip());
  steps['cached page, identity client: inflate the stored gzip (before; after when not kept)'] = () => {
    for (const g of level6) gunzipSync(g, { chunkSize: 64 * 1024 });
  };
  const totals = new Map<string, number>(Object.keys(steps).map((k) => [k, 0]));
  for (const run of Object.values(steps)) run(); // compile and warm first
  for (let r = 0; r < rounds; r++)
    for (const [name, run] of Object.entries(steps)) totals.set(name, totals.get(name)! + cpuMicros(run));
  const perPage = (name: string) => totals.get(name)! / rounds / bodies.length;
  const sum = (xs: Buffer[]) => xs.reduce((n, b) => n + b.length, 0);
  return [
    ...[...totals.keys()].map((name) => `  ${name}: ${perPage(name).toFixed(1)} µs CPU per page`),
    `  cached page, identity client, JSON kept (after): a map lookup, no per-page work`,
    `  gzip size of these ${bodies.length} pages: level 6 ${(sum(level6) / bodies.length / 1024).toFixed(2)} ` +
      `KiB, level 3 ${(sum(level3) / bodies.length / 1024).toFixed(2)} KiB per page (JSON ` +
      `${(sum(bodies) / bodies.length / 1024).toFixed(1)} KiB)`,
  ];
}
