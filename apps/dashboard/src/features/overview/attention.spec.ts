import { describe, expect, it } from '@jest/globals';
import type { Certificate } from '../certificates/types';
import { certificateProblems, hostsDown, openAlerts, zonesNotVerified } from './attention';

const now = Date.parse('2026-11-27T12:00:00Z');
const cert = (over: Partial<Certificate>): Certificate => ({
  id: 'c1',
  zone: 'example.com',
  domain: 'example.com',
  sans: [],
  is_wildcard: false,
  auto_renew: true,
  status: 'issued',
  issued_at: null,
  expires_at: null,
  next_renewal_at: null,
  serial: null,
  created_at: '2026-01-01T00:00:00Z',
  ...over,
});

describe('overview: what needs attention', () => {
  it('names failed, expired and soon-expiring certificates, not healthy ones', () => {
    const items = certificateProblems(
      [
        cert({ id: 'a', status: 'failed', domain: 'a.example.com' }),
        cert({
          id: 'b',
          status: 'issued',
          expires_at: '2026-12-02T13:00:00Z',
          auto_renew: false,
          domain: 'b.example.com',
        }),
        cert({ id: 'c', status: 'issued', expires_at: '2027-02-01T00:00:00Z', domain: 'c.example.com' }),
        cert({ id: 'd', status: 'expired', domain: 'd.example.com' }),
      ],
      now,
    );
    expect(items.map((i) => [i.severity, i.text, i.to])).toEqual([
      ['critical', 'The certificate for a.example.com failed to issue.', '/certificates/a'],
      [
        'warning',
        'The certificate for b.example.com expires in 5 days and does not renew by itself.',
        '/certificates/b',
      ],
      ['critical', 'The certificate for d.example.com has expired.', '/certificates/d'],
    ]);
  });

  it('lists hosts down and zones not verified with links', () => {
    expect(
      hostsDown([
        { domain_id: 3, fqdn: 'web.dyn.example.net', current_status: 'down', error: 'connection refused' },
        { domain_id: 4, fqdn: 'ok.dyn.example.net', current_status: 'operational', error: null },
      ] as never),
    ).toEqual([
      {
        key: 'down-3',
        severity: 'critical',
        text: 'web.dyn.example.net is down (connection refused).',
        to: '/uptime/3',
        action: 'See uptime of web.dyn.example.net',
      },
    ]);
    expect(
      zonesNotVerified([
        { name: 'x.example', status: 'pending_verification' },
        { name: 'y.example', status: 'verified' },
      ] as never).map((i) => i.to),
    ).toEqual(['/zones/x.example']);
  });

  it('keeps alerts whose newest entry is a raise', () => {
    const items = openAlerts([
      {
        id: '3',
        type: 'alert.raised',
        occurred_at: '3',
        domain: 'a.example',
        severity: 'critical',
        title: 'DMARC pass rate 80% on a.example',
        data: { rule: 'pass_rate' },
      },
      {
        id: '2',
        type: 'alert.resolved',
        occurred_at: '2',
        domain: 'b.example',
        severity: 'warning',
        title: 'resolved',
        data: { rule: 'record_missing' },
      },
      {
        id: '1',
        type: 'alert.raised',
        occurred_at: '1',
        domain: 'b.example',
        severity: 'warning',
        title: 'SPF record missing on b.example',
        data: { rule: 'record_missing' },
      },
    ]);
    expect(items.map((i) => [i.severity, i.text, i.to])).toEqual([
      ['critical', 'DMARC pass rate 80% on a.example', '/email-auth/a.example'],
    ]);
  });
});
