import { advisories } from './advisories';
import { dmarcRecord, mtaStsPolicyFile, txtPresentation } from './records';
import { DmarcSettings } from './settings';
import { countSpfLookups, parseSpf } from './spf';
import { passRate, Progression, recommend, STAGES } from './stages';

const dmarc = (policy: DmarcSettings['policy'], percentage: number): DmarcSettings => ({
  policy,
  subdomain_policy: null,
  percentage,
  rua: [],
  ruf: [],
  adkim: 'r',
  aspf: 'r',
  fo: '0',
});

describe('_dmarc record for RFC 7489 and RFC 9989 receivers', () => {
  it('publishes neither pct nor t at full stages, pct=N with t=y at partial ones', () => {
    expect(STAGES.map((s) => dmarcRecord(dmarc(s.policy, s.percentage)))).toEqual([
      'v=DMARC1; p=none',
      'v=DMARC1; p=quarantine; pct=10; t=y',
      'v=DMARC1; p=quarantine',
      'v=DMARC1; p=reject; pct=10; t=y',
      'v=DMARC1; p=reject',
    ]);
    expect(dmarcRecord(dmarc('none', 40))).toBe('v=DMARC1; p=none');
  });
});

describe('TXT presentation', () => {
  it('splits long values into quoted strings of at most 255 bytes and escapes quotes', () => {
    const long = 'x'.repeat(600);
    expect(txtPresentation(long)).toBe(`"${'x'.repeat(255)}" "${'x'.repeat(255)}" "${'x'.repeat(90)}"`);
    expect(txtPresentation('a"b\\c')).toBe('"a\\"b\\\\c"');
  });
});

describe('MTA-STS policy file', () => {
  it('is RFC 8461 §3.2 key/value lines with CRLF', () => {
    expect(
      mtaStsPolicyFile({
        mode: 'enforce',
        mx: ['mx1.example.com', '*.example.net'],
        max_age: 604800,
        id: '1',
        updated_at: '',
      }),
    ).toBe('version: STSv1\r\nmode: enforce\r\nmx: mx1.example.com\r\nmx: *.example.net\r\nmax_age: 604800\r\n');
  });
});

describe('SPF lookups (RFC 7208 §4.6.4)', () => {
  const served: Record<string, string> = {
    'spf.a.example': 'v=spf1 include:spf.b.example mx a -all',
    'spf.b.example': 'v=spf1 ip4:192.0.2.0/24 exists:%{i}.x.example ~all',
    'loop.example': 'v=spf1 include:loop.example -all',
    'broken.example': 'v=spf1 foo:bar -all',
  };
  const source = async (d: string) => served[d] ?? null;

  it('counts include, a, mx, ptr, exists and redirect through the records it can see', async () => {
    expect(await countSpfLookups(parseSpf('v=spf1 ip4:192.0.2.1 include:spf.a.example -all'), source)).toBe(1 + 3 + 1);
    expect(await countSpfLookups(parseSpf('v=spf1 include:unseen.example redirect=spf.b.example'), source)).toBe(
      1 + 1 + 1,
    );
  });

  it('refuses loops and malformed included records', async () => {
    await expect(countSpfLookups(parseSpf('v=spf1 include:loop.example -all'), source)).rejects.toThrow(/SPF loop/);
    await expect(countSpfLookups(parseSpf('v=spf1 include:broken.example -all'), source)).rejects.toThrow(
      /broken.example is invalid/,
    );
  });
});

describe('recommendation rules (seed order, contract wire values)', () => {
  const at = (over: Partial<Progression>): Progression => ({
    current_stage: 'monitoring',
    policy: 'none',
    percentage: 100,
    entered_at: '',
    days_at_current_stage: 14,
    messages_at_stage: 1000,
    pass_rate_at_stage: 99,
    stage_history: [],
    auto_advance: false,
    ...over,
  });

  it('follows the first matching rule and lists every unmet condition', () => {
    expect(recommend(at({}))).toMatchObject({ recommendation: 'ready_advance', ready_to_advance: true, blockers: [] });
    expect(recommend(at({ messages_at_stage: 99, pass_rate_at_stage: 50, days_at_current_stage: 1 }))).toMatchObject({
      recommendation: 'need_more_data',
      blockers: ['insufficient_data', 'low_pass_rate', 'min_days_not_met'],
    });
    expect(recommend(at({ pass_rate_at_stage: 97.9, days_at_current_stage: 1 }))).toMatchObject({
      recommendation: 'investigate',
      blockers: ['low_pass_rate', 'min_days_not_met'],
    });
    expect(recommend(at({ pass_rate_at_stage: 98, days_at_current_stage: 13 }))).toMatchObject({
      recommendation: 'keep_monitoring',
      blockers: ['min_days_not_met'],
    });
    expect(
      recommend(at({ current_stage: 'reject_partial', pass_rate_at_stage: 10, days_at_current_stage: 7 })),
    ).toMatchObject({
      recommendation: 'ready_advance',
      next_stage: 'reject_full',
    });
    expect(recommend(at({ current_stage: 'reject_full' }))).toMatchObject({
      recommendation: 'full_enforcement',
      next_stage: null,
      next_config: null,
      blockers: [],
    });
  });

  it('computes the pass rate in percent with one decimal', () => {
    expect(passRate(3, 2)).toBe(66.7);
    expect(passRate(0, 0)).toBe(0);
  });
});

describe('advisories', () => {
  it('warns about reports to other domains, no rua, and BIMI without enforcement', () => {
    const base = { spf: null, dkim: [], mtaSts: null, tlsRpt: null };
    expect(
      advisories('example.com', {
        ...base,
        dmarc: { ...dmarc('reject', 100), rua: ['mailto:d@reports.example.com', 'mailto:d@vendor.net'] },
        bimi: null,
      }),
    ).toEqual([
      'dmarc.rua: receivers send reports to vendor.net only if it publishes "v=DMARC1" at example.com._report._dmarc.vendor.net (RFC 7489 §7.1)',
    ]);
    expect(
      advisories('example.com', {
        ...base,
        dmarc: dmarc('quarantine', 10),
        bimi: { logo_url: 'https://x.example.com/l.svg', vmc_url: null },
      }),
    ).toEqual([
      'dmarc.rua: no aggregate report address, so the DMARC wizard receives no data',
      'bimi: mailbox providers show the logo only with DMARC at p=quarantine or p=reject for 100% of messages',
    ]);
  });
});
