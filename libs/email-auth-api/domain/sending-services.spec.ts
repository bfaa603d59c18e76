import { asnNumber, identifySender } from './sending-services';

describe('identifySender', () => {
  it('recognises a service from a PTR suffix at a label boundary, case and trailing dot aside', () => {
    expect(identifySender(['mail-sor-f41.Google.com.'], null)).toMatchObject({ service: { id: 'google' }, by: 'ptr' });
    expect(identifySender(['mail-eopbgr80071.outbound.protection.outlook.com'], null).service?.id).toBe('microsoft');
    expect(identifySender(['a48-93.smtp-out.amazonses.com'], null).service?.id).toBe('amazon_ses');
    expect(identifySender(['o1.ptr2410.sendgrid.net'], null).service?.id).toBe('sendgrid');
    expect(identifySender(['mail-1.mandrillapp.com'], null).service?.id).toBe('mailchimp');
    expect(identifySender(['sm-out-4.mtasv.net'], null).service?.id).toBe('postmark');
    expect(identifySender(['out1-smtp.messagingengine.com'], null).service?.id).toBe('fastmail');
  });

  it('does not match a suffix inside a label (evilgoogle.com is not Google)', () => {
    expect(identifySender(['mx.evilgoogle.com'], null)).toEqual({ service: null, by: null });
  });

  it('falls back to the service’s own mail network when no PTR matches', () => {
    expect(identifySender([], 15169)).toMatchObject({ service: { id: 'google' }, by: 'asn' });
    expect(identifySender(['host.example.net'], 11377)).toMatchObject({ service: { id: 'sendgrid' }, by: 'asn' });
    // Amazon's cloud ASN hosts everyone: only an SES PTR identifies SES.
    expect(identifySender(['ec2-1-2-3-4.compute.amazonaws.com'], 16509)).toEqual({ service: null, by: null });
  });

  it('prefers the PTR over the network', () => {
    expect(identifySender(['bounce.mailgun.net'], 15169)).toMatchObject({ service: { id: 'mailgun' }, by: 'ptr' });
  });

  it('reads ASNs as printed by the IP data', () => {
    expect([asnNumber('AS15169'), asnNumber('8075'), asnNumber('Unknown'), asnNumber(null)]).toEqual([
      15169,
      8075,
      null,
      null,
    ]);
  });
});
