import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StoredRow } from '../application/query-log.store';
import type { QueryRow } from '../domain/query-row';
import { queryRows } from './conformance/query-row.builder';
import { QueryRows } from '../domain/query-rows';
import { blocksOf, decodeBlock, MAX_BLOCK_ROWS, MAX_BLOCK_SPAN_MS } from './query-blocks';
import { SqliteQueryLogStore } from './sqlite-query-log.store';

const T0 = Date.parse('2026-05-10T00:00:00Z');
const row = queryRows({ ts: T0 });

const withoutId = ({ id: _id, ...r }: StoredRow): QueryRow => r;
const decodeAll = (rows: QueryRow[], firstId = 1) => blocksOf(rows, firstId).flatMap((b) => decodeBlock(b, b.data));

describe('query-log blocks', () => {
  it('give back every field of every row, with ids numbered in the order of the append', () => {
    const rows = [
      row({
        qname: 'a.a.test',
        clientIp: '2001:db8::1',
        country: 'DE',
        asn: 'AS3320',
        asOrg: 'Deutsche Telekom AG',
        transport: 'tcp',
        dnssecOk: true,
        responseMs: 12.345,
      }),
      row({
        ts: T0 + 5,
        domain: 'b.test',
        qname: 'ü.b.test',
        qtype: 'TYPE65',
        rcode: 'NXDOMAIN',
        edns: true,
        responseMs: 0,
      }),
      row({ ts: T0 + 3, qname: 'a.a.test', responseMs: 1000.001 }),
      row({ ts: T0 + 7, accountId: 2, clientIp: '::ffff:192.0.2.9' }),
    ];
    const decoded = decodeAll(rows, 100).sort((a, b) => Number(a.id) - Number(b.id));
    expect(decoded.map((r) => r.id)).toEqual(['100', '101', '102', '103']);
    expect(decoded.map(withoutId)).toEqual(rows);
  });

  it('keep one client entry per address, and a second one when the same address was enriched differently', () => {
    const rows = [row(), row({ country: 'AU', asn: 'AS13335', asOrg: 'Cloudflare, Inc.' }), row()];
    expect(decodeAll(rows).map((r) => r.country)).toEqual(['Unknown', 'AU', 'Unknown']);
  });

  it('give back rows numbered in a large shared table, block after block (as the writer hands them over)', () => {
    // 3,000 distinct names, every block of the batch drawing on the same table.
    const rows = Array.from({ length: 3000 }, (_, i) =>
      row({
        ts: T0 + i,
        domain: `d${i % 3}.test`,
        qname: `q${i}.d${i % 3}.test`,
        rcode: i % 2 ? 'NXDOMAIN' : 'NOERROR',
      }),
    );
    const columns = QueryRows.of(rows);
    expect(columns.strings.length).toBeGreaterThan(3000);
    const blocks = blocksOf(columns, 1);
    expect(blocks).toHaveLength(3);
    const decoded = blocks.flatMap((b) => decodeBlock(b, b.data)).sort((a, b) => Number(a.id) - Number(b.id));
    expect(decoded.map(withoutId)).toEqual(rows);
    // Encoding them again gives the same bytes: nothing of one block's numbering leaks into the next.
    expect(blocksOf(columns, 1).map((b) => b.data)).toEqual(blocks.map((b) => b.data));
  });

  it('are one per account and domain, split past the row and time limits', () => {
    expect(
      blocksOf([row(), row({ domain: 'b.test' }), row(), row({ accountId: 2 })], 1).map((b) => [
        b.accountId,
        b.domain,
        b.count,
      ]),
    ).toEqual([
      [1, 'a.test', 2],
      [1, 'b.test', 1],
      [2, 'a.test', 1],
    ]);
    const many = Array.from({ length: MAX_BLOCK_ROWS + 1 }, (_, i) => row({ ts: T0 + i }));
    expect(blocksOf(many, 1).map((b) => b.count)).toEqual([MAX_BLOCK_ROWS, 1]);
    // Two domains taking turns, one of them past the row limit: each block keeps its own rows, in order, with their ids.
    const turns = Array.from({ length: 2 * MAX_BLOCK_ROWS + 2 }, (_, i) =>
      row({ ts: T0 + i, domain: i % 2 ? 'b.test' : 'a.test', qname: `q${i}.test` }),
    );
    const split = blocksOf(turns, 10);
    expect(split.map((b) => [b.domain, b.count, b.firstId])).toEqual([
      ['a.test', MAX_BLOCK_ROWS, 10],
      ['b.test', MAX_BLOCK_ROWS, 11],
      ['a.test', 1, 10 + 2 * MAX_BLOCK_ROWS],
      ['b.test', 1, 11 + 2 * MAX_BLOCK_ROWS],
    ]);
    const back = split.flatMap((b) => decodeBlock(b, b.data)).sort((a, b) => Number(a.id) - Number(b.id));
    expect(back.map((r) => Number(r.id))).toEqual(turns.map((_, i) => 10 + i));
    expect(back.map(withoutId)).toEqual(turns);
    const spread = blocksOf([row(), row({ ts: T0 + MAX_BLOCK_SPAN_MS }), row({ ts: T0 + MAX_BLOCK_SPAN_MS + 1 })], 1);
    expect(spread.map((b) => [b.minTs - T0, b.maxTs - T0])).toEqual([
      [0, MAX_BLOCK_SPAN_MS],
      [MAX_BLOCK_SPAN_MS + 1, MAX_BLOCK_SPAN_MS + 1],
    ]);
  });
});

describe('a query-log file written before blocks (one row per query)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'qlog-legacy-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** The former layout, as a file of an earlier version holds it. */
  function writeLegacyFile(file: string, rows: QueryRow[]): void {
    const db = new Database(file);
    db.exec(`CREATE TABLE query_log (id INTEGER PRIMARY KEY, ts INTEGER NOT NULL, account_id INTEGER NOT NULL, domain TEXT NOT NULL, qname TEXT NOT NULL,
      qtype TEXT NOT NULL, rcode TEXT NOT NULL, client_ip TEXT NOT NULL, country TEXT NOT NULL, asn TEXT NOT NULL, as_org TEXT NOT NULL,
      transport TEXT NOT NULL, dnssec_ok INTEGER NOT NULL, edns INTEGER NOT NULL, response_ms REAL NOT NULL);
      CREATE INDEX query_log_account ON query_log (account_id, ts, id);
      CREATE INDEX query_log_domain ON query_log (account_id, domain, ts, id);`);
    const insert = db.prepare(
      'INSERT INTO query_log (ts, account_id, domain, qname, qtype, rcode, client_ip, country, asn, as_org, ' +
        'transport, dnssec_ok, edns, response_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    for (const r of rows)
      insert.run(
        r.ts,
        r.accountId,
        r.domain,
        r.qname,
        r.qtype,
        r.rcode,
        r.clientIp,
        r.country,
        r.asn,
        r.asOrg,
        r.transport,
        r.dnssecOk ? 1 : 0,
        r.edns ? 1 : 0,
        r.responseMs,
      );
    db.close();
  }

  it('keeps its rows readable beside new blocks, ids after the old ones, until retention empties and drops the old table', async () => {
    const file = join(dir, 'dns-query-log.db');
    writeLegacyFile(file, [row({ qname: 'old1.a.test' }), row({ ts: T0 + 1000, qname: 'old2.a.test' })]);
    const store = new SqliteQueryLogStore(file);
    try {
      // Same instant as the newest old row: the new one's id orders it after.
      await store.append([row({ ts: T0 + 1000, qname: 'new1.a.test' }), row({ ts: T0 + 2000, qname: 'new2.a.test' })]);
      expect((await store.recent({ accountId: 1, domain: null }, 0, 10)).map((r) => r.qname)).toEqual([
        'new2.a.test',
        'new1.a.test',
        'old2.a.test',
        'old1.a.test',
      ]);
      const first = await store.page({ accountId: 1, domain: 'a.test' }, 0, T0 + 10_000, null, 2);
      expect(first.map((r) => r.qname)).toEqual(['old1.a.test', 'old2.a.test']);
      const next = await store.page(
        { accountId: 1, domain: 'a.test' },
        0,
        T0 + 10_000,
        { ts: first[1].ts, id: first[1].id },
        10,
      );
      expect(next.map((r) => [r.qname, Number(r.id)])).toEqual([
        ['new1.a.test', 3],
        ['new2.a.test', 4],
      ]);

      // new1 and new2 share a block: it is rewritten with new2 only.
      expect((await store.prune(T0 + 1500, 0, 0)).rows).toBe(3);
      const tables = new Database(file, { readonly: true });
      expect(tables.prepare("SELECT name FROM sqlite_master WHERE name = 'query_log'").all()).toEqual([]);
      tables.close();
      expect((await store.recent({ accountId: 1, domain: null }, 0, 10)).map((r) => [r.qname, Number(r.id)])).toEqual([
        ['new2.a.test', 4],
      ]);
      expect((await store.prune(T0 + 2500, 0, 0)).rows).toBe(1);
      await store.append([row({ ts: T0 + 3000, qname: 'new3.a.test' })]);
      expect((await store.recent({ accountId: 1, domain: null }, 0, 10)).map((r) => Number(r.id))).toEqual([5]);
    } finally {
      await store.close();
    }
  });
});
