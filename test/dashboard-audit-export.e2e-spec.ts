/**
 * The audit log screen's export links (contract §14, §19) in a real browser: the JSON Lines
 * and CSV files the browser downloads (with the session cookie alone) hold every entry of the
 * account, oldest first, linked by their hashes; the screen stays clean under axe.
 */
import { readFileSync } from 'node:fs';
import { DashboardSuite, findings, startDashboardSuite } from './support/dashboard-suite';

jest.setTimeout(120_000);

describe('dashboard: audit log export links (contract §19)', () => {
  let s: DashboardSuite;

  beforeAll(async () => {
    s = await startDashboardSuite();
  });
  afterAll(() => s?.close());

  const downloaded = async (link: string): Promise<{ name: string; text: string }> => {
    const [file] = await Promise.all([
      s.page.waitForEvent('download'),
      s.page.getByRole('link', { name: link }).click(),
    ]);
    return { name: file.suggestedFilename(), text: readFileSync((await file.path())!, 'utf8') };
  };

  it('downloads the whole log as JSON Lines and CSV, oldest first and chained, matching the table', async () => {
    const user = await s.signIn({ plan: 'pro' });
    expect((await s.server.http.post('/api-keys', { name: 'exported-key' }, user.token)).status).toBe(201);
    await s.go('/audit');
    await s.page.locator('table').waitFor();
    const rows = await s.page.locator('tbody tr').count();

    const jsonl = await downloaded('JSONL');
    expect(jsonl.name).toMatch(/^audit-\d+\.jsonl$/);
    const entries = jsonl.text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; prev_hash: string | null; hash: string });
    expect(entries).toHaveLength(rows);
    expect(entries[0].type).toBe('AccountRegistered');
    expect(entries[0].prev_hash).toBeNull();
    for (let i = 1; i < entries.length; i++) expect(entries[i].prev_hash).toBe(entries[i - 1].hash);
    expect(entries.map((e) => e.type)).toContain('ApiKeyCreated');

    const csv = await downloaded('CSV');
    expect(csv.name).toMatch(/^audit-\d+\.csv$/);
    const lines = csv.text.trim().split('\r\n');
    expect(lines[0]).toBe('id,occurred_at,type,actor_type,actor_id,source_ip,correlation_id,data,prev_hash,hash');
    expect(lines).toHaveLength(rows + 1);
    expect(lines[lines.length - 1].endsWith(`,${entries[entries.length - 1].hash}`)).toBe(true);

    await s.checkScreen('audit-export');
    expect(findings(s)).toEqual({ a11y: {}, overflow: {}, problems: [] });
  });
});
