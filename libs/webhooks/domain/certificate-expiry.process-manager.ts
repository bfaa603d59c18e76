import { CertificateEvent } from '../../certificates/domain/certificate.events';
import { ProcessManager } from '../../consumers/process-manager';
import { DomainEvent } from '../../shared/decider';

/** `certificate.expiring` is sent this long before a certificate's expiry, unless a renewal replaced it first. */
export const EXPIRING_NOTICE_MS = 14 * 86_400_000;

/**
 * The moment a certificate nears its end, which no other context marks: appended by this
 * context on `certificate-expiring-<id>` when the timer below fires and the certificate
 * is still the one that expires then. `certificate` is the GET shape (no PEM, no key).
 */
export type CertificateExpiring = DomainEvent<
  'CertificateExpiring',
  { certificate_id: string; account_id: number; expires_at: string; certificate: Record<string, unknown>; at: string }
>;
export const certificateExpiringStream = (certificateId: string) => `certificate-expiring-${certificateId}`;

export type ExpiryFact = { type: 'issued'; expires_at: string } | { type: 'ended' };
export type ExpiryCommand = { type: 'MarkCertificateExpiring'; certificateId: string; expiresAt: string };
export interface ExpiryState {
  expiresAt: string | null;
}

const timerFor = (expiresAt: string) => `expiring:${expiresAt}`;

/**
 * One process per certificate: each issuance (the first or a renewal) schedules the notice
 * EXPIRING_NOTICE_MS before its expiry, replacing the previous one; deletion, revocation
 * and expiry cancel it.
 */
export const certificateExpiryProcess: ProcessManager<ExpiryState, ExpiryFact, ExpiryCommand> = {
  name: 'webhook-certificate-expiry',
  observes: ['CertificateIssued', 'CertificateDeleted', 'CertificateRevoked', 'CertificateExpired'],
  observe(event) {
    const e = { type: event.type, data: event.data } as CertificateEvent;
    switch (e.type) {
      case 'CertificateIssued':
        return { process: e.data.certificate_id, fact: { type: 'issued', expires_at: e.data.expires_at } };
      case 'CertificateDeleted':
      case 'CertificateRevoked':
      case 'CertificateExpired':
        return { process: e.data.certificate_id, fact: { type: 'ended' } };
      default:
        return null;
    }
  },
  initialState: () => ({ expiresAt: null }),
  evolve(s, t) {
    if (t.kind === 'timer') return { expiresAt: null };
    return { expiresAt: t.fact.type === 'issued' ? t.fact.expires_at : null };
  },
  decide(t, s) {
    if (t.kind === 'timer') {
      return s.expiresAt && t.timerId === timerFor(s.expiresAt)
        ? [
            {
              type: 'send',
              commandId: `certificate-expiring:${t.process}:${s.expiresAt}`,
              command: { type: 'MarkCertificateExpiring', certificateId: t.process, expiresAt: s.expiresAt },
            },
          ]
        : [];
    }
    const cancel = s.expiresAt ? [{ type: 'cancel' as const, timerId: timerFor(s.expiresAt) }] : [];
    if (t.fact.type === 'ended') return cancel;
    const dueAt = new Date(Date.parse(t.fact.expires_at) - EXPIRING_NOTICE_MS).toISOString();
    return [...cancel, { type: 'schedule', timerId: timerFor(t.fact.expires_at), dueAt }];
  },
};
