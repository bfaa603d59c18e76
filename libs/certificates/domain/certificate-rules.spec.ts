import { AppError } from '../../shared/errors';
import { specFor } from '../../shared/testing/decider-spec';
import {
  CA_DUPLICATES_PER_WEEK,
  CA_PER_DOMAIN_PER_WEEK,
  CA_WINDOW_MS,
  checkCaLimits,
  namesKey,
  PastIssuance,
} from './ca-limits';
import { LedgerEvent, ledgerDecider } from './certificate-ledger';
import { CertificateRequest, checkRequest, MAX_CERTIFICATES } from './certificate-rules';

const zone = { id: 'z1', name: 'example.com' };
const req = (over: Partial<CertificateRequest> = {}): CertificateRequest => ({
  plan: 'elite',
  zone,
  domain: 'example.com',
  sans: [],
  wildcard: false,
  autoRenew: false,
  ...over,
});
const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    const a = e as AppError;
    return [a.status, a.code, a.message];
  }
  return null;
};

describe('certificate plan and zone rules (seed errors table)', () => {
  it.each([
    ['free plan', req({ plan: 'free' }), [403, 'plan_required', 'Certificate management requires paid subscription']],
    [
      'free plan before the zone is looked at',
      req({ plan: 'free', zone: null }),
      [403, 'plan_required', 'Certificate management requires paid subscription'],
    ],
    [
      'wildcard on plus',
      req({ plan: 'plus', wildcard: true }),
      [403, 'plan_required', 'Wildcard certificates require Elite plan'],
    ],
    [
      'wildcard on pro',
      req({ plan: 'pro', wildcard: true }),
      [403, 'plan_required', 'Wildcard certificates require Elite plan'],
    ],
    [
      'auto-renew on plus',
      req({ plan: 'plus', autoRenew: true }),
      [403, 'plan_required', 'Auto-renewal requires Pro or Elite plan'],
    ],
    ['zone missing or not owned', req({ zone: null }), [404, 'not_found', 'Zone not found or no permission']],
    [
      'domain outside the zone',
      req({ domain: 'example.org' }),
      [400, 'domain_not_under_zone', 'Domain not under zone'],
    ],
    ['look-alike suffix', req({ domain: 'badexample.com' }), [400, 'domain_not_under_zone', 'Domain not under zone']],
    [
      'a SAN outside the zone',
      req({ sans: ['www.example.org'] }),
      [400, 'domain_not_under_zone', 'Domain not under zone'],
    ],
    [
      'a name that is no host name',
      req({ domain: 'a..example.com' }),
      [400, 'validation_failed', 'domain: "a..example.com" is not a valid host name'],
    ],
  ] as const)('refuses %s', (_name, request, expected) => {
    expect(refusal(() => checkRequest(request))).toEqual(expected);
  });

  it('accepts and lists every name: primary, wildcard, then SANs (deduplicated, lowercase)', () => {
    expect(
      checkRequest(
        req({ domain: 'Example.COM.', sans: ['www.example.com', 'WWW.example.com', 'example.com'], wildcard: true }),
      ),
    ).toEqual(['example.com', '*.example.com', 'www.example.com']);
    expect(checkRequest(req({ plan: 'pro', autoRenew: true, domain: 'a.example.com' }))).toEqual(['a.example.com']);
    expect(checkRequest(req({ plan: 'plus' }))).toEqual(['example.com']);
  });
});

describe('certificate ledger (plan limit, one certificate per domain)', () => {
  const spec = specFor(ledgerDecider);
  const at = '2026-01-01T00:00:00.000Z';
  const taken = (n: number, domain = `d${n}.example.com`): LedgerEvent => ({
    type: 'CertificateSlotTaken',
    data: { account_id: 1, certificate_id: `c${n}`, domain, at },
  });
  const take = (n: number, limit: number, domain = `d${n}.example.com`) => ({
    type: 'TakeSlot' as const,
    accountId: 1,
    certificateId: `c${n}`,
    domain,
    limit,
    at,
  });

  it.each([
    ['plus', 5],
    ['pro', 25],
    ['elite', 100],
  ] as const)('%s holds %i certificates, not one more', (plan, limit) => {
    expect(MAX_CERTIFICATES[plan]).toBe(limit);
    const full = Array.from({ length: limit }, (_, i) => taken(i));
    spec
      .given(full.slice(1))
      .when(take(0, limit))
      .then([taken(0)]);
    spec.given(full).when(take(limit, limit)).thenFails(403, 'Certificate limit reached for plan');
  });

  it('free holds none', () => {
    expect(MAX_CERTIFICATES.free).toBe(0);
    spec.given([]).when(take(1, 0)).thenFails(403, 'limit_reached');
  });

  it('one certificate per domain; a deleted one frees it', () => {
    spec
      .given([taken(1, 'example.com')])
      .when(take(2, 5, 'example.com'))
      .thenFails(409, 'Certificate already exists for domain');
    const released: LedgerEvent = {
      type: 'CertificateSlotReleased',
      data: { account_id: 1, certificate_id: 'c1', at },
    };
    spec
      .given([taken(1, 'example.com'), released])
      .when(take(2, 5, 'example.com'))
      .then([taken(2, 'example.com')]);
  });

  it('an expired certificate holds its domain but no slot; renewing it takes the slot back within the limit', () => {
    const parked: LedgerEvent = { type: 'CertificateSlotParked', data: { account_id: 1, certificate_id: 'c1', at } };
    spec
      .given([taken(1), taken(2)])
      .when({ type: 'ParkSlot', accountId: 1, certificateId: 'c1', at })
      .then([parked]);
    spec
      .given([taken(1), parked, taken(2)])
      .when(take(3, 2))
      .then([taken(3)]);
    spec
      .given([taken(1), parked, taken(2)])
      .when(take(9, 5, 'd1.example.com'))
      .thenFails(409, 'certificate_exists');
    spec
      .given([taken(1), parked, taken(2)])
      .when(take(1, 5))
      .then([taken(1)]);
    spec
      .given([taken(1), parked, taken(2), taken(3)])
      .when(take(1, 2))
      .thenFails(403, 'limit_reached');
    spec
      .given([taken(1)])
      .when(take(1, 5))
      .then([]);
  });
});

describe('CA rate limits, tracked locally', () => {
  const now = Date.parse('2026-01-08T00:00:00.000Z');
  const ago = (h: number) => new Date(now - h * 3_600_000).toISOString();
  const issuance = (names: string[], hoursAgo: number, domain = 'example.com'): PastIssuance => ({
    registered_domain: domain,
    names_key: namesKey(names),
    issued_at: ago(hoursAgo),
  });

  it('refuses the 6th duplicate within a week with 429 ca_rate_limited and Retry-After until the oldest leaves the window', () => {
    const names = ['example.com', 'www.example.com'];
    const past = Array.from({ length: CA_DUPLICATES_PER_WEEK }, (_, i) => issuance([...names].reverse(), 10 + i));
    let error: AppError | null = null;
    try {
      checkCaLimits(past, 'example.com', names, now);
    } catch (e) {
      error = e as AppError;
    }
    expect([error?.status, error?.code]).toEqual([429, 'ca_rate_limited']);
    expect(Number(error?.headers['Retry-After'])).toBe(Math.ceil((CA_WINDOW_MS - 14 * 3_600_000) / 1000));
    expect(() => checkCaLimits(past.slice(1), 'example.com', names, now)).not.toThrow();
    expect(() => checkCaLimits(past, 'example.com', ['other.example.com'], now)).not.toThrow();
  });

  it('refuses the 51st certificate per registered domain within a week; older issuances do not count', () => {
    const past = Array.from({ length: CA_PER_DOMAIN_PER_WEEK }, (_, i) => issuance([`h${i}.example.com`], 1));
    expect(() => checkCaLimits(past, 'example.com', ['new.example.com'], now)).toThrow(
      /50 certificates for example.com/,
    );
    expect(() => checkCaLimits(past, 'example.org', ['new.example.org'], now)).not.toThrow();
    const old = past.map((p) => ({ ...p, issued_at: ago(7 * 24 + 1) }));
    expect(() => checkCaLimits(old, 'example.com', ['new.example.com'], now)).not.toThrow();
  });
});
