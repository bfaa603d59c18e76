import { ZoneSettings } from '../../email-auth/domain/records';
import { compliance, isParked } from './compliance';

const none: ZoneSettings = { dmarc: null, spf: null, dkim: [], mtaSts: null, tlsRpt: null, bimi: null };
const dmarc = (policy: 'none' | 'quarantine' | 'reject', percentage = 100) => ({
  policy,
  subdomain_policy: null,
  percentage,
  rua: [],
  ruf: [],
  adkim: 'r' as const,
  aspf: 'r' as const,
  fo: '0',
});
const key = (bits: number) => ({
  selector: 's',
  public_key: 'x',
  key_type: 'rsa' as const,
  key_bits: bits,
  generated: true,
  created_at: '2026-01-01T00:00:00Z',
});

describe('compliance', () => {
  it('scores nothing published as 0 with every mechanism missing', () => {
    expect(compliance(none)).toEqual({
      score: 0,
      dmarc: 'missing',
      spf: 'missing',
      dkim: 'missing',
      bimi: 'missing',
      mta_sts: 'missing',
      tls_rpt: 'missing',
    });
  });

  it('scores everything enforced as 100', () => {
    const c = compliance({
      dmarc: dmarc('reject'),
      spf: { include: ['_spf.example.net'], ip4: [], ip6: [], all: '-all' },
      dkim: [key(2048)],
      mtaSts: { mode: 'enforce', mx: ['mx.example.org'], max_age: 86400, id: '1', updated_at: '' },
      tlsRpt: { rua: ['mailto:tls@example.org'] },
      bimi: { logo_url: 'https://example.org/l.svg', vmc_url: null },
    });
    expect(c).toEqual({
      score: 100,
      dmarc: 'enforced',
      spf: 'enforced',
      dkim: 'enforced',
      bimi: 'enforced',
      mta_sts: 'enforced',
      tls_rpt: 'enforced',
    });
  });

  it('counts monitoring, partial percentages, soft SPF, short keys and BIMI without enforcement as partial', () => {
    const c = compliance({
      ...none,
      dmarc: dmarc('quarantine', 10),
      spf: { include: [], ip4: ['192.0.2.1'], ip6: [], all: '~all' },
      dkim: [key(1024)],
      bimi: { logo_url: 'https://x/l.svg', vmc_url: null },
    });
    expect(c).toMatchObject({ dmarc: 'partial', spf: 'partial', dkim: 'partial', bimi: 'partial' });
    expect(c.score).toBe(Math.round(35 / 2 + 20 / 2 + 20 / 2 + 10 / 2));
    expect(compliance({ ...none, dmarc: dmarc('none') }).dmarc).toBe('partial');
  });

  it('calls a domain that authorizes no sender parked', () => {
    expect(isParked({ ...none, spf: { include: [], ip4: [], ip6: [], all: '-all' } })).toBe(true);
    expect(isParked({ ...none, spf: { include: ['a.example'], ip4: [], ip6: [], all: '-all' } })).toBe(false);
    expect(isParked(none)).toBe(false);
  });
});
