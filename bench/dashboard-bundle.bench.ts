/**
 * Measures what a browser downloads on the dashboard's first load: the JavaScript and CSS
 * that index.html references (entry and module preloads), raw, gzip (what the service
 * sends) and brotli, and the chunks loaded later on demand. Target: first-load JavaScript
 * under 300 KB compressed (issue 15).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { dashboardDir } from '../libs/dashboard/web-front';

export interface FileSize {
  file: string;
  raw: number;
  gzip: number;
  brotli: number;
}

export interface BundleSizes {
  firstLoadJs: FileSize[];
  firstLoadCss: FileSize[];
  onDemand: FileSize[];
}

const sizeOf = (dir: string, file: string): FileSize => {
  const body = readFileSync(join(dir, 'assets', file));
  return { file, raw: body.length, gzip: gzipSync(body, { level: 9 }).length, brotli: brotliCompressSync(body).length };
};

export const total = (files: FileSize[], key: 'raw' | 'gzip' | 'brotli'): number =>
  files.reduce((s, f) => s + f[key], 0);

export function measureBundle(dir: string): BundleSizes {
  const html = readFileSync(join(dir, 'index.html'), 'utf8');
  const referenced = [...html.matchAll(/(?:src|href)="\/app\/assets\/([^"]+)"/g)].map((m) => m[1]);
  const all = readdirSync(join(dir, 'assets'));
  return {
    firstLoadJs: referenced.filter((f) => f.endsWith('.js')).map((f) => sizeOf(dir, f)),
    firstLoadCss: referenced.filter((f) => f.endsWith('.css')).map((f) => sizeOf(dir, f)),
    onDemand: all.filter((f) => !referenced.includes(f)).map((f) => sizeOf(dir, f)),
  };
}

if (require.main === module) {
  const dir = dashboardDir();
  if (!dir) throw new Error('dist/dashboard is missing: run `npm run build`');
  const sizes = measureBundle(dir);
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
  const row = (label: string, files: FileSize[]) =>
    console.log(
      `${label.padEnd(22)} raw ${kb(total(files, 'raw')).padStart(9)}  gzip ` +
        `${kb(total(files, 'gzip')).padStart(9)}  brotli ${kb(total(files, 'brotli')).padStart(9)}  ` +
        `(${files.map((f) => f.file).join(', ')})`,
    );
  row('first-load JavaScript', sizes.firstLoadJs);
  row('first-load CSS', sizes.firstLoadCss);
  row('on demand (charts)', sizes.onDemand);
  const gz = total(sizes.firstLoadJs, 'gzip');
  console.log(
    `first-load JavaScript, gzip as served: ${kb(gz)} (target < 300 KB: ${gz < 300 * 1024 ? 'met' : 'NOT met'})`,
  );
}
