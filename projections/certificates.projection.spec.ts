import { CertificateEvent } from '../libs/certificates/domain/certificate.events';
import { project } from '../libs/projection-engine/projection-harness';
import { CERTIFICATE_ISSUANCES, CERTIFICATES, certificatesProjection } from './certificates.projection';

const CERT = 'c1';
const requested: CertificateEvent = {
  type: 'CertificateRequested',
  data: {
    certificate_id: CERT,
    account_id: 7,
    zone_id: 'z1',
    zone: 'example.test',
    domain: 'example.test',
    sans: ['www.example.test'],
    names: ['example.test', 'www.example.test'],
    is_wildcard: false,
    auto_renew: true,
    at: '2026-03-01T00:00:00Z',
  },
};
const issued: CertificateEvent = {
  type: 'CertificateIssued',
  data: {
    certificate_id: CERT,
    attempt: 1,
    serial: 'abc',
    certificate_pem: '-----BEGIN CERTIFICATE-----secret-ish',
    chain_pem: '',
    issued_at: '2026-03-01T00:01:00Z',
    expires_at: '2026-05-30T00:01:00Z',
    next_renewal_at: '2026-04-30T00:01:00Z',
    at: '2026-03-01T00:01:00Z',
  },
};

describe('certificates projection', () => {
  it('given a certificate requested, ordered and issued: issued with its dates and logs, no PEM, one issuance counted; replaying changes nothing', async () => {
    const h = await project<CertificateEvent>(certificatesProjection, [
      requested,
      {
        type: 'AcmeOrderPlaced',
        data: {
          certificate_id: CERT,
          attempt: 1,
          order_url: 'https://ca/o/1',
          finalize_url: 'https://ca/f/1',
          challenges: [],
          at: '2026-03-01T00:00:10Z',
        },
      },
      { type: 'ChallengeRecordsRemoved', data: { certificate_id: CERT, attempt: 1, at: '2026-03-01T00:00:50Z' } },
      issued,
    ]);
    const [doc] = await h.documents(CERTIFICATES);
    expect(doc).toMatchObject({
      _id: CERT,
      status: 'issued',
      serial: 'abc',
      expires_at: '2026-05-30T00:01:00Z',
      next_renewal_at: '2026-04-30T00:01:00Z',
      cleanup_pending: false,
      deleted: false,
      updated_at: '2026-03-01T00:01:00Z',
    });
    expect(doc.logs.map((l) => l.message)).toEqual([
      'Certificate requested for example.test, www.example.test',
      'ACME order placed (https://ca/o/1) with 0 dns-01 challenge(s)',
      'Challenge TXT records removed',
      'Certificate issued (serial abc), valid until 2026-05-30T00:01:00Z',
    ]);
    expect(JSON.stringify(doc)).not.toContain('BEGIN CERTIFICATE');
    const issuances = await h.documents(CERTIFICATE_ISSUANCES);
    expect(issuances).toEqual([
      {
        _id: `${CERT}:1`,
        registered_domain: 'example.test',
        names_key: expect.any(String),
        issued_at: '2026-03-01T00:01:00Z',
      },
    ]);

    await h.replayed();
    expect(await h.documents(CERTIFICATES)).toEqual([doc]);
    expect(await h.documents(CERTIFICATE_ISSUANCES)).toEqual(issuances);
    await h.close();
  });

  it('a certificate deleted with no challenge record owed is gone', async () => {
    const h = await project<CertificateEvent>(certificatesProjection, [
      requested,
      issued,
      { type: 'CertificateDeleted', data: { certificate_id: CERT, account_id: 7, domain: 'example.test', at: 't' } },
    ]);
    expect(await h.documents(CERTIFICATES)).toEqual([]);
    await h.close();
  });
});
