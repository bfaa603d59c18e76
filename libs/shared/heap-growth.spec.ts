import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { transpileModule, ModuleKind } from 'typescript';

/**
 * The flag only shows in how a heap behaves, so each case runs in a fresh Node process
 * (this module compiled as is): ~20 MB stay live while a stream of short-lived batches
 * is allocated, as the service's documents are; the peak committed heap is compared.
 */
describe('limitHeapGrowth', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'heap-growth-'));
    const source = readFileSync(join(__dirname, 'heap-growth.ts'), 'utf8');
    writeFileSync(
      join(dir, 'heap-growth.js'),
      transpileModule(source, { compilerOptions: { module: ModuleKind.CommonJS } }).outputText,
    );
    writeFileSync(
      join(dir, 'run.js'),
      `require('./heap-growth').limitHeapGrowth(Number(process.argv[2]));
       const live = []; for (let i = 0; i < 200000; i++) live.push({ a: i, b: 'x' + i, c: [i, i + 1] });
       const recent = []; let peak = 0;
       for (let r = 0; r < 3000; r++) {
         const batch = []; for (let i = 0; i < 2000; i++) batch.push({ r, i, s: 'y'.repeat(50) + i });
         recent.push(batch); if (recent.length > 30) recent.shift();
         peak = Math.max(peak, process.memoryUsage().heapTotal);
       }
       process.stdout.write(String(peak));`,
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const peakHeap = (percent: number) =>
    Number(execFileSync(process.execPath, [join(dir, 'run.js'), String(percent)], { encoding: 'utf8' }));

  it('keeps the committed heap closer to the live size than V8 does by default', () => {
    const byDefault = peakHeap(0);
    const limited = peakHeap(30);
    expect(limited).toBeLessThan(byDefault * 0.8);
  }, 60_000);
});
