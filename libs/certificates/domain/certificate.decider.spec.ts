import { fold } from '../../shared/decider';
import { specFor } from '../../shared/testing/decider-spec';
import { certificateDecider, CertificateCommand } from './certificate.decider';
import { CertificateEvent, ChallengeRecord } from './certificate.events';
import { challengeSubname, challengeTxtSets, nextIssuanceStep } from './issuance-plan';

const spec = specFor(certificateDecider);
const ID = 'c0ffee00-0000-4000-8000-000000000001';
const T0 = '2026-01-01T00:00:00.000Z';
const at = (s: number) => new Date(Date.parse(T0) + s * 1000).toISOString();
const EXPIRES = '2026-04-01T00:00:00.000Z';
const challenge = (identifier: string, value = `v-${identifier}`): ChallengeRecord => ({
  identifier,
  authz_url: `https://ca/authz/${identifier}`,
  challenge_url: `https://ca/chall/${identifier}`,
  subname: challengeSubname(identifier, 'example.com'),
  value,
});
const CHALLENGES = [challenge('example.com'), challenge('*.example.com')];

const e = {
  requested: (autoRenew = false): CertificateEvent => ({
    type: 'CertificateRequested',
    data: {
      certificate_id: ID,
      account_id: 1,
      zone_id: 'z1',
      zone: 'example.com',
      domain: 'example.com',
      sans: [],
      names: ['example.com', '*.example.com'],
      is_wildcard: true,
      auto_renew: autoRenew,
      at: T0,
    },
  }),
  orderRequested: (attempt = 1): CertificateEvent => ({
    type: 'AcmeOrderRequested',
    data: { certificate_id: ID, attempt, at: at(1) },
  }),
  ordered: (attempt = 1): CertificateEvent => ({
    type: 'AcmeOrderPlaced',
    data: {
      certificate_id: ID,
      attempt,
      order_url: `https://ca/order/${attempt}`,
      finalize_url: `https://ca/finalize/${attempt}`,
      challenges: CHALLENGES,
      at: at(1),
    },
  }),
  published: (attempt = 1): CertificateEvent => ({
    type: 'ChallengeRecordsPublished',
    data: { certificate_id: ID, attempt, at: at(2) },
  }),
  answered: (attempt = 1): CertificateEvent => ({
    type: 'ChallengesAnswered',
    data: { certificate_id: ID, attempt, at: at(8) },
  }),
  authorized: (attempt = 1): CertificateEvent => ({
    type: 'AuthorizationsValidated',
    data: { certificate_id: ID, attempt, at: at(10) },
  }),
  keyed: (attempt = 1): CertificateEvent => ({
    type: 'CertificateKeyGenerated',
    data: { certificate_id: ID, attempt, sealed_private_key: 'v1.sealed', csr_pem: 'CSR', at: at(11) },
  }),
  issued: (attempt = 1, nextRenewal: string | null = null, serial = 'ab'): CertificateEvent => ({
    type: 'CertificateIssued',
    data: {
      certificate_id: ID,
      attempt,
      serial,
      certificate_pem: 'CERT',
      chain_pem: 'CHAIN',
      issued_at: at(12),
      expires_at: EXPIRES,
      next_renewal_at: nextRenewal,
      at: at(12),
    },
  }),
  failed: (attempt = 1): CertificateEvent => ({
    type: 'IssuanceFailed',
    data: {
      certificate_id: ID,
      attempt,
      step: 'authorization',
      error: 'urn:ietf:params:acme:error:unauthorized: no TXT',
      at: at(9),
    },
  }),
  removed: (attempt = 1): CertificateEvent => ({
    type: 'ChallengeRecordsRemoved',
    data: { certificate_id: ID, attempt, at: at(13) },
  }),
  renewal: (attempt = 2, trigger: 'manual' | 'automatic' = 'manual'): CertificateEvent => ({
    type: 'RenewalRequested',
    data: { certificate_id: ID, attempt, trigger, at: at(20) },
  }),
  expired: (): CertificateEvent => ({ type: 'CertificateExpired', data: { certificate_id: ID, at: EXPIRES } }),
  pending: (poll: number, attempt = 1): CertificateEvent => ({
    type: 'AuthorizationsPending',
    data: { certificate_id: ID, attempt, poll, next_poll_at: at(9 + poll * 2), at: at(8 + poll * 2) },
  }),
  deferred: (step: string, tries: number, attempt = 1): CertificateEvent => ({
    type: 'IssuanceStepDeferred',
    data: {
      certificate_id: ID,
      attempt,
      step,
      tries,
      error: 'HTTP 503: busy',
      retry_at: at(30 + tries),
      at: at(29 + tries),
    },
  }),
};
const ISSUED = [
  e.requested(),
  e.ordered(),
  e.published(),
  e.answered(),
  e.authorized(),
  e.keyed(),
  e.issued(),
  e.removed(),
];
const RENEWAL_DATE = '2026-03-02T00:00:00.000Z';

describe('certificate decider: the seed state table', () => {
  it('(none) → pending on create', () => {
    const cmd: CertificateCommand = {
      type: 'RequestCertificate',
      certificateId: ID,
      accountId: 1,
      zoneId: 'z1',
      zone: 'example.com',
      domain: 'example.com',
      sans: [],
      names: ['example.com', '*.example.com'],
      isWildcard: true,
      autoRenew: false,
      at: T0,
    };
    spec.given([]).when(cmd).then([e.requested()]);
    spec.given([e.requested()]).when(cmd).thenFails(409, 'certificate_exists');
    expect(fold(certificateDecider, [e.requested()]).status).toBe('pending');
  });

  it('the order request is recorded once before the CA is asked; the certificate stays pending', () => {
    spec
      .given([e.requested()])
      .when({ type: 'RecordOrderRequested', attempt: 1, at: at(1) })
      .then([e.orderRequested()]);
    spec
      .given([e.requested(), e.orderRequested()])
      .when({ type: 'RecordOrderRequested', attempt: 1, at: at(1) })
      .then([]);
    spec
      .given([e.requested()])
      .when({ type: 'RecordOrderRequested', attempt: 2, at: at(1) })
      .then([]);
    expect(fold(certificateDecider, [e.requested(), e.orderRequested()]).status).toBe('pending');
  });

  it('pending → validating when the order is placed (challenge records owed from then on)', () => {
    spec
      .given([e.requested()])
      .when({
        type: 'RecordOrderPlaced',
        attempt: 1,
        orderUrl: 'https://ca/order/1',
        finalizeUrl: 'https://ca/finalize/1',
        challenges: CHALLENGES,
        at: at(1),
      })
      .then([e.ordered()]);
    const s = fold(certificateDecider, [e.requested(), e.ordered()]);
    expect(s.status).toBe('validating');
    expect([...s.liveRecords.keys()]).toEqual([1]);
  });

  it('each process step is recorded once, in order, for the current attempt only', () => {
    const base = [e.requested(), e.ordered()];
    spec
      .given(base)
      .when({ type: 'RecordRecordsPublished', attempt: 1, at: at(2) })
      .then([e.published()]);
    spec
      .given([...base, e.published()])
      .when({ type: 'RecordRecordsPublished', attempt: 1, at: at(3) })
      .then([]);
    spec
      .given(base)
      .when({ type: 'RecordChallengesAnswered', attempt: 1, at: at(8) })
      .then([]); // not before publishing
    spec
      .given([...base, e.published()])
      .when({ type: 'RecordChallengesAnswered', attempt: 1, at: at(8) })
      .then([e.answered()]);
    spec
      .given([...base, e.published(), e.answered()])
      .when({ type: 'RecordAuthorized', attempt: 1, at: at(10) })
      .then([e.authorized()]);
    spec
      .given([...base, e.published(), e.answered(), e.authorized()])
      .when({ type: 'RecordKeyGenerated', attempt: 1, sealedPrivateKey: 'v1.sealed', csrPem: 'CSR', at: at(11) })
      .then([e.keyed()]);
    // A report for another attempt (a stale step) records nothing.
    spec
      .given(base)
      .when({ type: 'RecordRecordsPublished', attempt: 2, at: at(2) })
      .then([]);
    spec
      .given([e.requested()])
      .when({ type: 'RecordOrderPlaced', attempt: 1, orderUrl: 'x', finalizeUrl: 'y', challenges: [], at: at(1) })
      .then([
        {
          type: 'AcmeOrderPlaced',
          data: { certificate_id: ID, attempt: 1, order_url: 'x', finalize_url: 'y', challenges: [], at: at(1) },
        },
      ]);
    spec
      .given(base)
      .when({ type: 'RecordOrderPlaced', attempt: 1, orderUrl: 'x2', finalizeUrl: 'y2', challenges: [], at: at(1) })
      .then([]);
  });

  it('authorizations still pending: each poll is counted, with the time of the next; none after they are valid', () => {
    const answered = [e.requested(), e.ordered(), e.published(), e.answered()];
    spec
      .given(answered)
      .when({ type: 'RecordAuthorizationsPending', attempt: 1, nextPollAt: at(11), at: at(10) })
      .then([e.pending(1)]);
    spec
      .given([...answered, e.pending(1)])
      .when({ type: 'RecordAuthorizationsPending', attempt: 1, nextPollAt: at(13), at: at(12) })
      .then([e.pending(2)]);
    spec
      .given([...answered, e.authorized()])
      .when({ type: 'RecordAuthorizationsPending', attempt: 1, nextPollAt: at(13), at: at(12) })
      .then([]);
    spec
      .given([e.requested(), e.ordered(), e.published()])
      .when({ type: 'RecordAuthorizationsPending', attempt: 1, nextPollAt: at(13), at: at(12) })
      .then([]);
  });

  it('an outage defers a step with its retry time; tries count in a row for that step and start over after any other outcome', () => {
    const base = [e.requested(), e.ordered(), e.published(), e.answered(), e.authorized(), e.keyed()];
    const defer = (step: string, tries: number): CertificateCommand => ({
      type: 'RecordStepDeferred',
      attempt: 1,
      step,
      error: 'HTTP 503: busy',
      retryAt: at(30 + tries),
      at: at(29 + tries),
    });
    spec
      .given(base)
      .when(defer('finalize', 1))
      .then([e.deferred('finalize', 1)]);
    spec
      .given([...base, e.deferred('finalize', 1)])
      .when(defer('finalize', 2))
      .then([e.deferred('finalize', 2)]);
    spec
      .given([e.requested(), e.deferred('place_order', 1), e.ordered()])
      .when(defer('publish_records', 1))
      .then([e.deferred('publish_records', 1)]);
    expect(fold(certificateDecider, [...base, e.deferred('finalize', 1), e.deferred('finalize', 2)]).deferral).toEqual({
      attempt: 1,
      step: 'finalize',
      tries: 2,
    });
    expect(fold(certificateDecider, [...base, e.deferred('finalize', 1), e.issued()]).deferral).toBeNull();
    // The cleanup an ended attempt owes may be deferred; an attempt with nothing left may not.
    spec
      .given([e.requested(), e.ordered(), e.failed()])
      .when(defer('remove_records', 1))
      .then([e.deferred('remove_records', 1)]);
    spec
      .given([...ISSUED])
      .when(defer('finalize', 1))
      .then([]);
  });

  it('validating → issued when finalized; next_renewal_at = expiry − 30 days only with auto-renew', () => {
    const until = [e.ordered(), e.published(), e.answered(), e.authorized(), e.keyed()];
    const record: CertificateCommand = {
      type: 'RecordIssued',
      attempt: 1,
      serial: 'ab',
      certificatePem: 'CERT',
      chainPem: 'CHAIN',
      issuedAt: at(12),
      expiresAt: EXPIRES,
      at: at(12),
    };
    spec
      .given([e.requested(), ...until])
      .when(record)
      .then([e.issued()]);
    spec
      .given([e.requested(true), ...until])
      .when(record)
      .then([e.issued(1, RENEWAL_DATE)]);
    spec.given([e.requested(), e.ordered(), e.published(), e.answered(), e.authorized()]).when(record).then([]); // no key yet
    const s = fold(certificateDecider, [...ISSUED]);
    expect(s.status).toBe('issued');
    expect(s.current).toMatchObject({ serial: 'ab', sealedPrivateKey: 'v1.sealed', expiresAt: EXPIRES });
  });

  it('validating → failed on a challenge or finalization failure; a late report after it records nothing', () => {
    const base = [e.requested(), e.ordered(), e.published(), e.answered()];
    spec
      .given(base)
      .when({
        type: 'RecordFailed',
        attempt: 1,
        step: 'authorization',
        error: 'urn:ietf:params:acme:error:unauthorized: no TXT',
        at: at(9),
      })
      .then([e.failed()]);
    spec
      .given([...base, e.failed()])
      .when({ type: 'RecordAuthorized', attempt: 1, at: at(10) })
      .then([]);
    spec
      .given([...base, e.failed()])
      .when({ type: 'RecordFailed', attempt: 1, step: 'x', error: 'y', at: at(10) })
      .then([]);
    expect(fold(certificateDecider, [...base, e.failed()]).status).toBe('failed');
  });

  it('challenge records are removed once per attempt', () => {
    spec
      .given([...ISSUED.slice(0, 7)])
      .when({ type: 'RecordRecordsRemoved', attempt: 1, at: at(13) })
      .then([e.removed()]);
    spec
      .given(ISSUED)
      .when({ type: 'RecordRecordsRemoved', attempt: 1, at: at(14) })
      .then([]);
  });

  it('issued → validating on manual or automatic renewal; failed and expired renew too (recovery)', () => {
    type Renew = Extract<CertificateCommand, { type: 'RenewCertificate' }>;
    const renew = (trigger: 'manual' | 'automatic' = 'manual'): Renew => ({
      type: 'RenewCertificate',
      accountId: 1,
      plan: 'plus',
      trigger,
      at: at(20),
    });
    spec.given(ISSUED).when(renew()).then([e.renewal()]);
    spec
      .given(ISSUED)
      .when({ ...renew('automatic'), accountId: null })
      .then([e.renewal(2, 'automatic')]);
    spec.given([e.requested(), e.ordered(), e.failed()]).when(renew()).then([e.renewal()]);
    spec
      .given([...ISSUED, e.expired()])
      .when(renew())
      .then([e.renewal()]);
    spec.given([e.requested()]).when(renew()).thenFails(409, 'issuance_in_progress');
    spec
      .given([...ISSUED, e.renewal()])
      .when(renew())
      .thenFails(409, 'issuance_in_progress');
    spec
      .given(ISSUED)
      .when({ ...renew(), plan: 'free' })
      .thenFails(403, 'Certificate management requires paid subscription');
    spec
      .given(ISSUED)
      .when({ ...renew(), accountId: 2 })
      .thenFails(404, 'Certificate not found');
    const s = fold(certificateDecider, [...ISSUED, e.renewal()]);
    expect([s.status, s.attempt, s.progress.order, s.current?.serial]).toEqual(['validating', 2, null, 'ab']);
  });

  it('a renewal that succeeds returns to issued with new dates; the old attempt owes no cleanup', () => {
    const second = [
      e.renewal(),
      e.ordered(2),
      e.published(2),
      e.answered(2),
      e.authorized(2),
      e.keyed(2),
      e.issued(2, null, 'cd'),
      e.removed(2),
    ];
    const s = fold(certificateDecider, [...ISSUED, ...second]);
    expect([s.status, s.current?.serial, s.liveRecords.size]).toEqual(['issued', 'cd', 0]);
  });

  it('issued → expired once the expiry date passes, not before, and only from issued', () => {
    spec.given(ISSUED).when({ type: 'ExpireCertificate', at: EXPIRES }).then([e.expired()]);
    spec
      .given(ISSUED)
      .when({ type: 'ExpireCertificate', at: at(100) })
      .then([]);
    spec.given([e.requested()]).when({ type: 'ExpireCertificate', at: EXPIRES }).then([]);
    spec
      .given([...ISSUED, e.expired()])
      .when({ type: 'ExpireCertificate', at: EXPIRES })
      .then([]);
  });

  it('issued → revoked → removed on delete with revoke; any → removed on delete without', () => {
    const revoked: CertificateEvent = {
      type: 'CertificateRevoked',
      data: { certificate_id: ID, serial: 'ab', at: at(30) },
    };
    const deleted: CertificateEvent = {
      type: 'CertificateDeleted',
      data: { certificate_id: ID, account_id: 1, domain: 'example.com', at: at(30) },
    };
    spec
      .given(ISSUED)
      .when({ type: 'DeleteCertificate', accountId: 1, revokedSerial: 'ab', at: at(30) })
      .then([revoked, deleted]);
    spec
      .given([e.requested()])
      .when({ type: 'DeleteCertificate', accountId: 1, revokedSerial: null, at: at(30) })
      .then([deleted]);
    spec
      .given([e.requested()])
      .when({ type: 'DeleteCertificate', accountId: 1, revokedSerial: 'ab', at: at(30) })
      .thenFails(409, 'not_issued');
    spec
      .given(ISSUED)
      .when({ type: 'DeleteCertificate', accountId: 2, revokedSerial: null, at: at(30) })
      .thenFails(404, 'Certificate not found');
    spec
      .given([...ISSUED, deleted])
      .when({ type: 'DeleteCertificate', accountId: 1, revokedSerial: null, at: at(31) })
      .thenFails(404, 'Certificate not found');
  });

  it('auto-renew toggle: Pro/Elite to enable, any paid plan to disable; the renewal date follows', () => {
    const set = (autoRenew: boolean, plan: 'free' | 'plus' | 'pro' | 'elite'): CertificateCommand => ({
      type: 'SetAutoRenew',
      accountId: 1,
      plan,
      autoRenew,
      at: at(40),
    });
    spec
      .given(ISSUED)
      .when(set(true, 'pro'))
      .then([
        {
          type: 'AutoRenewChanged',
          data: { certificate_id: ID, auto_renew: true, next_renewal_at: RENEWAL_DATE, at: at(40) },
        },
      ]);
    spec.given(ISSUED).when(set(true, 'plus')).thenFails(403, 'Auto-renewal requires Pro or Elite plan');
    spec.given(ISSUED).when(set(false, 'free')).thenFails(403, 'Certificate management requires paid subscription');
    spec
      .given([e.requested(true)])
      .when(set(false, 'plus'))
      .then([
        {
          type: 'AutoRenewChanged',
          data: { certificate_id: ID, auto_renew: false, next_renewal_at: null, at: at(40) },
        },
      ]);
    spec.given(ISSUED).when(set(false, 'elite')).then([]);
  });
});

describe('issuance process manager: next step from the certificate stream alone', () => {
  const DELAY = 5000;
  const step = (events: CertificateEvent[], now = Date.parse(at(100))) =>
    nextIssuanceStep(fold(certificateDecider, events), now, DELAY);

  it('walks the seed state table one recorded outcome at a time', () => {
    expect(step([e.requested()])).toEqual({ kind: 'request_order', attempt: 1 });
    expect(step([e.requested(), e.orderRequested()])).toEqual({
      kind: 'place_order',
      attempt: 1,
      names: ['example.com', '*.example.com'],
    });
    expect(step([e.requested(), e.ordered()])).toEqual({ kind: 'publish_records', attempt: 1, records: CHALLENGES });
    expect(step([e.requested(), e.ordered(), e.published()], Date.parse(at(3)))).toEqual({
      kind: 'wait_propagation',
      attempt: 1,
      until: Date.parse(at(2)) + DELAY,
    });
    expect(step([e.requested(), e.ordered(), e.published()], Date.parse(at(7)))).toEqual({
      kind: 'answer_challenges',
      attempt: 1,
      records: CHALLENGES,
    });
    expect(step([e.requested(), e.ordered(), e.published(), e.answered()])).toEqual({
      kind: 'poll_authorizations',
      attempt: 1,
      records: CHALLENGES,
      polls: 0,
    });
    expect(step([e.requested(), e.ordered(), e.published(), e.answered(), e.pending(1), e.pending(2)])).toEqual({
      kind: 'poll_authorizations',
      attempt: 1,
      records: CHALLENGES,
      polls: 2,
    });
    expect(step([e.requested(), e.ordered(), e.published(), e.answered(), e.authorized()])).toEqual({
      kind: 'generate_key',
      attempt: 1,
      names: ['example.com', '*.example.com'],
    });
    expect(step([e.requested(), e.ordered(), e.published(), e.answered(), e.authorized(), e.keyed()])).toEqual({
      kind: 'finalize',
      attempt: 1,
      orderUrl: 'https://ca/order/1',
      finalizeUrl: 'https://ca/finalize/1',
      csrPem: 'CSR',
    });
    expect(step(ISSUED.slice(0, 7))).toEqual({ kind: 'remove_records', attempt: 1, records: CHALLENGES });
    expect(step(ISSUED)).toEqual({ kind: 'idle' });
  });

  it('after a failure: cleanup, then idle until a renewal starts a new attempt', () => {
    const failed = [e.requested(), e.ordered(), e.published(), e.answered(), e.failed()];
    expect(step(failed)).toEqual({ kind: 'remove_records', attempt: 1, records: CHALLENGES });
    expect(step([...failed, e.removed()])).toEqual({ kind: 'idle' });
    expect(step([...failed, e.removed(), e.renewal()])).toEqual({ kind: 'request_order', attempt: 2 });
    expect(step([...failed, e.removed(), e.renewal(), e.orderRequested(2)])).toMatchObject({
      kind: 'place_order',
      attempt: 2,
    });
  });

  it('a crash right after the order but before publishing resumes at publishing, never a second order', () => {
    expect(step([e.requested(), e.orderRequested(), e.ordered()]).kind).toBe('publish_records');
    // Between the request and the recorded order the step is place_order again; the step
    // of a new run first looks for that order at the CA (findOpenOrder) before placing one.
    expect(step([e.requested(), e.orderRequested()]).kind).toBe('place_order');
  });

  it('cleanup of an earlier attempt comes before the new attempt; a deleted certificate still cleans up', () => {
    const renewedEarly = [...ISSUED.slice(0, 7), e.renewal()];
    expect(step(renewedEarly)).toEqual({ kind: 'remove_records', attempt: 1, records: CHALLENGES });
    const deleted: CertificateEvent = {
      type: 'CertificateDeleted',
      data: { certificate_id: ID, account_id: 1, domain: 'example.com', at: at(30) },
    };
    expect(step([e.requested(), e.ordered(), e.published(), deleted])).toEqual({
      kind: 'remove_records',
      attempt: 1,
      records: CHALLENGES,
    });
    expect(step([e.requested(), deleted])).toEqual({ kind: 'idle' });
  });

  it('challenge owners: the wildcard shares its base name, the apex is _acme-challenge', () => {
    expect(challengeSubname('example.com', 'example.com')).toBe('_acme-challenge');
    expect(challengeSubname('*.example.com', 'example.com')).toBe('_acme-challenge');
    expect(challengeSubname('www.shop.example.com', 'example.com')).toBe('_acme-challenge.www.shop');
    expect(challengeTxtSets(CHALLENGES)).toEqual([
      { subname: '_acme-challenge', values: ['v-example.com', 'v-*.example.com'] },
    ]);
  });
});
