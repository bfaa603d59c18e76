import { ALL_PROJECTIONS } from '../../projections';
import { handledBy, liveEventTypes, routeEvent } from './live-topics';

describe('live notices: where an event goes and what it says', () => {
  const handled = handledBy(ALL_PROJECTIONS);

  it('routes a certificate issued to its account with the certificate id only: no PEM, key or other field', () => {
    const routed = routeEvent(handled, {
      type: 'CertificateIssued',
      data: {
        certificate_id: 'c-1',
        certificate_pem: '-----BEGIN CERTIFICATE-----',
        chain_pem: '-----BEGIN',
        sealed_private_key: 'secret',
        serial: '01',
      },
      metadata: { account_id: 7 },
    });
    expect(routed).toEqual({
      accountId: 7,
      readModels: expect.arrayContaining(['certificates', 'audit']),
      notice: { topics: expect.arrayContaining(['certificates', 'audit']), type: 'CertificateIssued', ref: 'c-1' },
    });
    expect(JSON.stringify(routed!.notice)).not.toMatch(/BEGIN|secret|serial/);
  });

  it('takes the account of telemetry from its data (uptime checks) and names the monitor', () => {
    const routed = routeEvent(handled, {
      type: 'CheckRecorded',
      data: { domain_id: 3, account_id: 9, is_up: false, ip: '192.0.2.1', port: 443 },
      metadata: {},
    });
    expect(routed?.accountId).toBe(9);
    expect(routed?.notice).toEqual({ topics: ['uptime'], type: 'CheckRecorded', ref: '3' });
  });

  it('sends an event of no account nowhere, and follows only event types a live topic reads', () => {
    expect(routeEvent(handled, { type: 'CertificateIssued', data: { certificate_id: 'c' }, metadata: {} })).toBeNull();
    expect(
      routeEvent(handled, { type: 'NoSuchEvent', data: { account_id: 1 }, metadata: { account_id: 1 } }),
    ).toBeNull();
    const types = liveEventTypes(handled);
    expect(types.has('DomainAddressesChanged')).toBe(true);
    expect(types.has('ZoneRRsetsChanged')).toBe(true);
    expect(types.has('NoSuchEvent')).toBe(false);
  });
});
