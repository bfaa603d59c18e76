/**
 * What an index costs the read store's writer per updated row (decision 0117): SQLite keeps
 * an index over an expression of the document up at every write of the document, and an
 * index on a column only when the write sets the column. A table of ROWS documents shaped
 * like the DDNS hosts' (two indexed fields, `account_id` and `target_pos`), HOT of them
 * updated in random order, BATCH rows a transaction (WAL, synchronous=NORMAL, as the store
 * opens its file), in four ways:
 *   - `expression`: the upsert of the document, indexes over `json_extract(doc, …)` (before 0117);
 *   - `columns, guarded`: the values in columns, `UPDATE … SET doc WHERE key AND <values kept>`,
 *     the upsert only when that changes nothing (what the writer runs);
 *   - `columns, moved named`: the same, setting the one column the store's hint names;
 *   - `columns, moved unnamed`: a value moves that the hint did not name: the guard fails, then the upsert.
 * Each way with the indexed values kept, and with `target_pos` moving at every write (uptime's
 * documents under DDNS). Prints the process's CPU per row.
 *
 * Run: npm run build && node dist/bench/readstore-value-columns.bench.js
 * Env: ROWS (20000), HOT (5000), BATCH (100), COMMITS (250)
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROWS = Number(process.env.ROWS ?? 20_000);
const HOT = Number(process.env.HOT ?? 5000);
const BATCH = Number(process.env.BATCH ?? 100);
const COMMITS = Number(process.env.COMMITS ?? 250);

type Way = 'expression' | 'columns, guarded' | 'columns, moved named' | 'columns, moved unnamed';

const doc = (i: number, version: number, moving: boolean) =>
  JSON.stringify({
    _id: i,
    account_id: i % 40,
    fqdn: `h${i}.bench.example.net`,
    address: `10.0.${version & 255}.${i & 255}`,
    monitor_enabled: false,
    target_pos: moving ? version : 0,
    updated_at: new Date(1e12 + version).toISOString(),
    padding: 'x'.repeat(200),
  });

let runs = 0;

function run(dir: string, way: Way, moving: boolean): number {
  // A file per run: each starts from the same table.
  const file = join(dir, `run-${(runs += 1)}.db`);
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('cache_size = -8192');
  db.pragma('wal_autocheckpoint = 8192');
  const columns = way !== 'expression';
  const paths = ['$.account_id', '$.target_pos'];
  db.exec(
    `CREATE TABLE c (key TEXT PRIMARY KEY, doc BLOB NOT NULL${columns ? ', "$.account_id", "$.target_pos"' : ''})`,
  );
  paths.forEach((p, i) => db.exec(`CREATE INDEX i${i} ON c (${columns ? `"${p}"` : `json_extract(doc, '${p}')`})`));
  const load = db.prepare('INSERT INTO c (key, doc) VALUES (?, jsonb(?))');
  db.transaction(() => {
    for (let i = 0; i < ROWS; i++) load.run(`j:${i}`, doc(i, 0, moving));
  })();
  if (columns) db.exec(`UPDATE c SET ${paths.map((p) => `"${p}" = json_extract(doc, '${p}')`).join(', ')}`);
  db.pragma('wal_checkpoint(TRUNCATE)');

  const text = 'CAST(@doc AS TEXT)';
  const upsert = columns
    ? db.prepare(
        `INSERT INTO c (key, doc, "$.account_id", "$.target_pos") VALUES (@key, jsonb(${text}), ` +
          `json_extract(${text}, '$.account_id'), json_extract(${text}, '$.target_pos')) ON CONFLICT (key) DO UPDATE ` +
          `SET doc = excluded.doc, "$.account_id" = excluded."$.account_id", "$.target_pos" = excluded."$.target_pos"`,
      )
    : db.prepare(
        `INSERT INTO c (key, doc) VALUES (@key, jsonb(${text})) ON CONFLICT (key) DO UPDATE SET doc = excluded.doc`,
      );
  const guarded = (set: string[]) =>
    db.prepare(
      `UPDATE c SET doc = jsonb(${text})${set.map((p) => `, "${p}" = json_extract(${text}, '${p}')`).join('')} ` +
        `WHERE key = @key${paths
          .filter((p) => !set.includes(p))
          .map((p) => ` AND "${p}" IS json_extract(${text}, '${p}')`)
          .join('')}`,
    );
  const update =
    way === 'columns, moved named' && moving ? guarded(['$.target_pos']) : way === 'expression' ? null : guarded([]);
  const write = db.transaction((rows: { key: string; doc: Buffer }[]) => {
    for (const row of rows) if (!update || update.run(row).changes === 0) upsert.run(row);
  });

  let seed = 1;
  const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const batches = Array.from({ length: COMMITS }, (_, c) =>
    Array.from({ length: BATCH }, (_, r) => {
      const i = Math.floor(random() * HOT);
      return { key: `j:${i}`, doc: Buffer.from(doc(i, c * BATCH + r + 1, moving)) };
    }),
  );
  const start = process.cpuUsage();
  for (const rows of batches) write(rows);
  const used = process.cpuUsage(start);
  db.close();
  return (used.user + used.system) / (COMMITS * BATCH);
}

function main(): void {
  const dir = mkdtempSync(join(tmpdir(), 'rs-value-columns-'));
  try {
    for (const moving of [false, true]) {
      const ways: Way[] = moving
        ? ['expression', 'columns, moved named', 'columns, moved unnamed']
        : ['expression', 'columns, guarded'];
      // Each way twice, alternating, so the machine's load falls on all alike.
      for (let round = 1; round <= 2; round++)
        for (const way of ways)
          console.log(
            `${moving ? 'target_pos moving' : 'values kept      '}  ${way.padEnd(24)} round ${round}: ` +
              `${run(dir, way, moving).toFixed(2)} µs CPU per row`,
          );
    }
    console.log(`rows ${ROWS}, hot ${HOT}, ${BATCH} rows a transaction, ${COMMITS} transactions`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main();
