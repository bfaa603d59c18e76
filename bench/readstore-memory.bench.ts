/**
 * Read-store memory against history: writes audit-like documents (about 1 KiB of JSON
 * each, the shape the audit projection stores) into the embedded read store as a
 * projection does (upsert by event id, checkpoint every 500), with the audit page query
 * and `_id` lookups running alongside, and prints resident memory, heap and file size
 * every step. The embedded store keeps documents on disk, so RSS should stay flat while
 * the file grows.
 *
 * Run: npm run build && node --expose-gc dist/bench/readstore-memory.bench.js
 *   env: READSTORE_BENCH_DOCS (1,000,000), READSTORE_BENCH_STEP (100,000),
 *        READSTORE_BENCH_CACHE_MIB (16, the default document cache)
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedReadStore } from '../libs/readstore/embedded/embedded-read-store';

const DOCS = Number(process.env.READSTORE_BENCH_DOCS ?? 1_000_000);
const STEP = Number(process.env.READSTORE_BENCH_STEP ?? 100_000);
const CACHE_MIB = Number(process.env.READSTORE_BENCH_CACHE_MIB ?? 16);
const ACCOUNTS = 500;

const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(0).padStart(5);
const fileSize = (file: string) => {
  let total = 0;
  for (const f of [file, `${file}-wal`]) {
    try {
      total += statSync(f).size;
    } catch {
      // no WAL yet
    }
  }
  return total;
};

function auditDoc(i: number) {
  const account = i % ACCOUNTS;
  return {
    _id: `0192e4a0-${String(i).padStart(12, '0')}`,
    account_id: account,
    position: i,
    stream: `domain-${account}-${i % 37}`,
    revision: Math.floor(i / ACCOUNTS),
    type: 'DomainAddressesChanged',
    occurred_at: new Date(1_700_000_000_000 + i * 1000).toISOString(),
    actor: { kind: 'ddns', key_id: `key-${account}` },
    source_ip: `198.51.100.${i % 250}`,
    correlation_id: `corr-${i}`,
    data: {
      domain_id: i % 5000,
      fqdn: `host-${i % 5000}.dyn.example.net`,
      addresses: { ipv4: `192.0.2.${i % 250}`, ipv6: `2001:db8::${(i % 65535).toString(16)}` },
      previous: { ipv4: `192.0.2.${(i + 1) % 250}`, ipv6: null },
      at: new Date(1_700_000_000_000 + i * 1000).toISOString(),
      note: 'x'.repeat(600),
    },
  };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'readstore-memory-'));
  const file = join(dir, 'readmodels.db');
  console.log(
    `read-store memory benchmark: ${DOCS.toLocaleString('en-US')} audit-like documents, document cache ${CACHE_MIB} MiB; load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  const store = new EmbeddedReadStore({
    file,
    cacheMiB: CACHE_MIB,
    writer: (process.env.READSTORE_BENCH_WRITER as 'inline' | undefined) ?? 'auto',
  });
  const audit = store.collection('audit_events__g1');
  const checkpoints = store.collection('_checkpoints');
  await audit.createIndex({ account_id: 1, position: -1 });
  const gc = (globalThis as { gc?: () => void }).gc;
  console.log('documents    RSS MiB   heap MiB   file MiB   docs/s   audit page ms');
  const started = Date.now();
  let stepStarted = Date.now();
  try {
    for (let i = 1; i <= DOCS; i++) {
      const doc = auditDoc(i);
      await audit.replaceOne({ _id: doc._id }, doc, { upsert: true });
      if (i % 500 === 0) {
        await checkpoints.updateOne({ _id: 'audit__g1' }, { $set: { position: String(i) } }, { upsert: true });
        // What readers do meanwhile: a page of one account's log, a lookup of a recent entry.
        await audit.findOne({ _id: auditDoc(i - 250)._id });
      }
      if (i % STEP === 0) {
        await store.flush();
        const pageStart = process.hrtime.bigint();
        const page = await audit.find({ account_id: i % ACCOUNTS }, { sort: { position: -1 }, limit: 51 });
        const pageMs = Number(process.hrtime.bigint() - pageStart) / 1e6;
        if (page.length !== 51 || page[0].position !== i) {
          throw new Error(`unexpected audit page: ${page.length} entries, first at ${page[0]?.position}`);
        }
        gc?.();
        const { rss, heapUsed } = process.memoryUsage();
        const rate = Math.round(STEP / ((Date.now() - stepStarted) / 1000));
        console.log(
          `${i.toLocaleString('en-US').padStart(9)}   ${mib(rss)}      ${mib(heapUsed)}      ` +
            `${mib(fileSize(file))}    ${String(rate).padStart(6)}   ${pageMs.toFixed(2)}`,
        );
        stepStarted = Date.now();
      }
    }
    console.log(
      `total ${((Date.now() - started) / 1000).toFixed(1)} s; document cache holds ${store.cache.size.entries} ` +
        `entries, ${mib(store.cache.size.bytes)} MiB of JSON`,
    );
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
