import { Decider, DomainEvent, unreachable } from '../../shared/decider';
import { conflict, forbidden } from '../../shared/errors';
import { MESSAGES } from './certificate-rules';

/**
 * An account's certificates as counted for its plan and for "one active certificate
 * per domain", on the stream `certificate-ledger-<account>`: the decision that a new
 * certificate fits is taken on one stream, so two concurrent creates cannot both take
 * the last slot or the same domain. Expired certificates hold their domain but not a
 * slot (contract §10 counts pending, validating, issued and failed).
 */
export type LedgerEvent =
  | DomainEvent<'CertificateSlotTaken', { account_id: number; certificate_id: string; domain: string; at: string }>
  | DomainEvent<'CertificateSlotParked', { account_id: number; certificate_id: string; at: string }>
  | DomainEvent<'CertificateSlotReleased', { account_id: number; certificate_id: string; at: string }>;

export interface LedgerEntry {
  domain: string;
  counting: boolean;
}
export type LedgerState = Map<string, LedgerEntry>;

export type LedgerCommand =
  | { type: 'TakeSlot'; accountId: number; certificateId: string; domain: string; limit: number; at: string }
  | { type: 'ParkSlot'; accountId: number; certificateId: string; at: string }
  | { type: 'ReleaseSlot'; accountId: number; certificateId: string; at: string };

export const ledgerStream = (accountId: number) => `certificate-ledger-${accountId}`;
export const countingSlots = (s: LedgerState) => [...s.values()].filter((e) => e.counting).length;

export const ledgerDecider: Decider<LedgerState, LedgerCommand, LedgerEvent> = {
  initialState: () => new Map(),
  evolve(s, e) {
    const next = new Map(s);
    switch (e.type) {
      case 'CertificateSlotTaken':
        return next.set(e.data.certificate_id, { domain: e.data.domain, counting: true });
      case 'CertificateSlotParked': {
        const entry = next.get(e.data.certificate_id);
        return entry ? next.set(e.data.certificate_id, { ...entry, counting: false }) : next;
      }
      case 'CertificateSlotReleased':
        next.delete(e.data.certificate_id);
        return next;
      default:
        return unreachable(e);
    }
  },
  decide(c, s) {
    const base = { account_id: c.accountId, certificate_id: c.certificateId, at: c.at };
    switch (c.type) {
      case 'TakeSlot': {
        const own = s.get(c.certificateId);
        if (own?.counting) return [];
        if (!own && [...s.values()].some((e) => e.domain === c.domain))
          throw conflict('certificate_exists', MESSAGES.exists);
        if (countingSlots(s) >= c.limit) throw forbidden('limit_reached', MESSAGES.limitReached);
        return [{ type: 'CertificateSlotTaken', data: { ...base, domain: own?.domain ?? c.domain } }];
      }
      case 'ParkSlot':
        return s.get(c.certificateId)?.counting ? [{ type: 'CertificateSlotParked', data: base }] : [];
      case 'ReleaseSlot':
        return s.has(c.certificateId) ? [{ type: 'CertificateSlotReleased', data: base }] : [];
      default:
        return unreachable(c);
    }
  },
};
