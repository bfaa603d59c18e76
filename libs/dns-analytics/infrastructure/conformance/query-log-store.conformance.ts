/**
 * What every QueryLogStore adapter must do, run against each (SQLite always, MongoDB when
 * MONGODB_URL is set): the same rows in, the same sums, pages and prunes out.
 */
import type { QueryLogStore } from '../../application/query-log.store';
import { ALL_DOMAINS, rollupsOf } from '../../domain/rollup';
import { queryRows } from './query-row.builder';

export interface ConformanceContext {
  store: QueryLogStore;
  dispose(): Promise<void>;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = Date.parse('2026-05-10T00:00:00Z');

const row = queryRows({ ts: T0 });

export function describeQueryLogStoreConformance(name: string, open: () => Promise<ConformanceContext>): void {
  describe(`QueryLogStore conformance: ${name}`, () => {
    let ctx: ConformanceContext;
    beforeEach(async () => {
      ctx = await open();
    });
    afterEach(async () => {
      await ctx.dispose();
    });

    it('sums rollups per domain and for the whole account, by hour and by day, within the bounds', async () => {
      await ctx.store.append([
        row(),
        row({ ts: T0 + 90 * 60_000, domain: 'b.test', rcode: 'NXDOMAIN', qname: 'x.b.test' }),
        row({ ts: T0 + DAY, qtype: 'AAAA' }),
        row({ accountId: 2 }),
      ]);
      // A second batch into the same buckets adds up.
      await ctx.store.append([row({ ts: T0 + 30 * 60_000, transport: 'tcp' })]);
      const s = ctx.store;
      expect((await s.sumRollups(1, ALL_DOMAINS, 'day', T0, T0)).total).toBe(3);
      expect((await s.sumRollups(1, 'a.test', 'day', T0, T0 + DAY)).qtypes).toEqual({ A: 2, AAAA: 1 });
      expect((await s.sumRollups(1, 'b.test', 'hour', T0, T0 + 23 * HOUR)).nxdomain).toEqual({ 'x.b.test': 1 });
      expect((await s.sumRollups(1, ALL_DOMAINS, 'hour', T0, T0)).tcp).toBe(1);
      expect((await s.sumRollups(1, ALL_DOMAINS, 'hour', T0 + HOUR, T0 + DAY - 1)).total).toBe(1);
      expect((await s.sumRollups(2, ALL_DOMAINS, 'day', T0 - DAY, T0 + DAY)).total).toBe(1);
      expect((await s.sumRollups(3, ALL_DOMAINS, 'day', T0 - DAY, T0 + DAY)).total).toBe(0);
    });

    it('adds pre-built rollups to what is there', async () => {
      await ctx.store.append([row()]);
      await ctx.store.addRollups(rollupsOf([row({ rcode: 'SERVFAIL' }), row()]));
      expect((await ctx.store.sumRollups(1, 'a.test', 'day', T0, T0)).rcodes).toEqual({ NOERROR: 2, SERVFAIL: 1 });
    });

    it('returns recent rows newest first, from `since`, up to the limit, by account or domain', async () => {
      await ctx.store.append(
        Array.from({ length: 30 }, (_, i) =>
          row({ ts: T0 + i * 1000, qname: `q${i}.a.test`, domain: i % 2 ? 'b.test' : 'a.test' }),
        ),
      );
      await ctx.store.append([row({ accountId: 2, ts: T0 + 99_000 })]);
      const recent = await ctx.store.recent({ accountId: 1, domain: null }, T0 + 10_000, 5);
      expect(recent.map((r) => r.qname)).toEqual([
        'q29.a.test',
        'q28.a.test',
        'q27.a.test',
        'q26.a.test',
        'q25.a.test',
      ]);
      expect(await ctx.store.recent({ accountId: 1, domain: null }, T0 + 25_000, 100)).toHaveLength(5);
      expect(
        (await ctx.store.recent({ accountId: 1, domain: 'b.test' }, T0, 100)).every((r) => r.domain === 'b.test'),
      ).toBe(true);
      expect(recent[0]).toMatchObject({
        accountId: 1,
        domain: 'b.test',
        qtype: 'A',
        rcode: 'NOERROR',
        clientIp: '192.0.2.1',
        transport: 'udp',
        dnssecOk: false,
        edns: false,
        responseMs: 0.5,
      });
    });

    it('pages the raw log in (ts, id) order without skipping or repeating rows of the same instant', async () => {
      await ctx.store.append(
        Array.from({ length: 25 }, (_, i) => row({ ts: T0 + Math.floor(i / 10) * 1000, qname: `q${i}.a.test` })),
      );
      await ctx.store.append([row({ ts: T0 + DAY, qname: 'outside.a.test' })]);
      const seen: string[] = [];
      let after = null;
      for (;;) {
        const page = await ctx.store.page({ accountId: 1, domain: null }, T0, T0 + DAY, after, 7);
        seen.push(...page.map((r) => r.qname));
        if (page.length < 7) break;
        after = { ts: page[6].ts, id: page[6].id };
      }
      expect(seen).toEqual(Array.from({ length: 25 }, (_, i) => `q${i}.a.test`));
    });

    it('prunes raw rows and each granularity by its own cutoff', async () => {
      await ctx.store.append([row({ ts: T0 - 40 * DAY }), row({ ts: T0 - 2 * DAY }), row({ ts: T0 })]);
      const pruned = await ctx.store.prune(T0 - DAY, T0 - 10 * DAY, T0 - 30 * DAY);
      expect(pruned.rows).toBe(2);
      // The 40-day-old row's hour and day buckets (per domain and for the account: 2 + 2);
      // the 2-day-old row's hour buckets are within the 10 days kept.
      expect(pruned.rollups).toBe(4);
      expect((await ctx.store.sumRollups(1, 'a.test', 'hour', 0, T0)).total).toBe(2);
      expect(await ctx.store.page({ accountId: 1, domain: null }, 0, T0 + DAY, null, 10)).toHaveLength(1);
      expect((await ctx.store.sumRollups(1, ALL_DOMAINS, 'day', 0, T0)).total).toBe(2);
    });
  });
}
