/**
 * Issue 27, "Phone layouts that work": on a phone, tables become compact lists (a title line,
 * then short "label: value" runs) instead of one tall card per row. The DNS analytics page
 * with 100 recent queries, the tallest screen (14,000 px before), is measured at 390 px
 * wide and the figure printed. Real server process, `dig` queries, Debian's Chromium.
 */
import { screenshotsAt } from './support/browser';
import { DashboardSuite, eventually, findings, startDashboardSuite } from './support/dashboard-suite';
import { dig } from './support/dig';
import { freePort } from './support/server-process';

jest.setTimeout(180_000);

const ZONE = 'phone.example';

describe('dashboard: phone layouts (issue 27)', () => {
  let s: DashboardSuite;
  let dnsPort: number;

  beforeAll(async () => {
    dnsPort = await freePort();
    s = await startDashboardSuite({ DNS_PORT: String(dnsPort) });
  });
  afterAll(async () => s?.close());

  it('shows 100 recent queries on a phone as compact rows of at most three short lines', async () => {
    const user = await s.signIn({ plan: 'pro' });
    const names = Array.from({ length: 20 }, (_, i) => `host${i} IN A 192.0.2.${i + 1}`);
    expect(
      (
        await s.server.http.post(
          '/zones',
          { name: ZONE, zone_file: `$ORIGIN ${ZONE}.\n$TTL 300\n${names.join('\n')}\n` },
          user.token,
        )
      ).status,
    ).toBe(201);
    await eventually(
      () => dig(dnsPort, `host0.${ZONE}`, 'A').status,
      (st) => st === 'NOERROR',
    );
    for (let i = 0; i < 120; i++)
      dig(dnsPort, i % 7 === 0 ? `missing${i}.${ZONE}` : `host${i % 20}.${ZONE}`, i % 3 ? 'A' : 'AAAA');

    await s.go('/analytics');
    await s.page.getByRole('group', { name: 'Rows to show' }).getByRole('button', { name: '100', exact: true }).click();
    const recent = s.page.getByRole('region', { name: 'Recent queries, newest first' });
    const rows = await eventually(
      async () => {
        await s.page.getByRole('button', { name: 'Refresh' }).click();
        await s.page.waitForSelector('.loading', { state: 'detached' });
        return recent.locator('tbody tr').count();
      },
      (n) => n === 100,
      20_000,
    );
    expect(rows).toBe(100);

    await s.page.setViewportSize({ width: 390, height: 844 });
    await s.page.waitForTimeout(300);
    const height = (await s.page.evaluate('document.documentElement.scrollHeight')) as number;
    // Every row is measured, in one frame: which rows sit at fixed places depends on the order the
    // queries were logged in, and only some rows (an AAAA answered NXDOMAIN) used to wrap to a fourth line.
    await s.page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');
    const rowHeights = await recent
      .locator('tbody tr')
      .evaluateAll((trs) => trs.map((tr) => Math.round(tr.getBoundingClientRect().height)));
    const tallest = await recent.locator('tbody tr').evaluateAll(
      (trs) =>
        trs
          .map((tr) => ({
            h: tr.getBoundingClientRect().height,
            text: (tr as unknown as { innerText: string }).innerText,
          }))
          .sort((a, b) => b.h - a.h)[0],
    );
    const recentHeight = (await recent.boundingBox())!.height;
    console.log(
      `analytics page at 390 px with 100 recent queries: ${height} px tall; recent queries ` +
        `${Math.round(recentHeight)} px, rows ${Math.min(...rowHeights)}–${Math.max(...rowHeights)} px; ` +
        `tallest: ${JSON.stringify(tallest.text)}`,
    );
    await screenshotsAt(s.page, 'analytics-phone', [390]);
    // At most three short lines per query (name; time, type, answer; client, response), not a card of six label/value blocks.
    expect(rowHeights).toHaveLength(100);
    expect(Math.max(...rowHeights)).toBeLessThan(80);
    expect(recentHeight / 100).toBeLessThan(80);
    await s.checkScreen('analytics-100-rows');
  });

  it('keeps the default page (25 recent queries) to a few phone screens', async () => {
    await s.page.setViewportSize({ width: 390, height: 844 });
    await s.go('/analytics');
    await s.page.getByRole('region', { name: 'Recent queries, newest first' }).locator('tbody tr').nth(24).waitFor();
    const height = (await s.page.evaluate('document.documentElement.scrollHeight')) as number;
    console.log(`analytics page at 390 px with the default 25 recent queries: ${height} px tall`);
    expect(height).toBeLessThan(7000);
    await s.page.setViewportSize({ width: 1280, height: 900 });
  });

  it('leaves every screen clean: no serious accessibility finding, nothing wider than a phone, no CSP violation', () => {
    expect(findings(s)).toEqual({ a11y: {}, overflow: {}, problems: [] });
  });
});
