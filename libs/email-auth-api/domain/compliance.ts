import { ZoneSettings } from '../../email-auth/domain/records';

/**
 * Compliance of one domain's email authentication, from its settings (seed: /domains
 * "compliance score, and the state of DMARC, SPF, DKIM, BIMI, MTA-STS and TLS-RPT").
 * Each mechanism is `missing`, `partial` (published but not protecting fully) or
 * `enforced`; the score weighs them by how much spoofing each one stops.
 */
export type MechanismState = 'missing' | 'partial' | 'enforced';

export interface Compliance {
  score: number;
  dmarc: MechanismState;
  spf: MechanismState;
  dkim: MechanismState;
  bimi: MechanismState;
  mta_sts: MechanismState;
  tls_rpt: MechanismState;
}

/** Weights out of 100: DMARC decides what receivers do with spoofed mail, so it weighs most. */
const WEIGHTS = { dmarc: 35, spf: 20, dkim: 20, mta_sts: 10, tls_rpt: 5, bimi: 10 } as const;
const SHARE: Record<MechanismState, number> = { missing: 0, partial: 0.5, enforced: 1 };

/** RSA keys under 2048 bits are deprecated (RFC 8301 allows 1024 only for verification). */
const strongKey = (k: ZoneSettings['dkim'][number]) => k.key_type === 'ed25519' || k.key_bits >= 2048;

export function compliance(s: ZoneSettings): Compliance {
  const dmarc: MechanismState = !s.dmarc
    ? 'missing'
    : s.dmarc.policy !== 'none' && s.dmarc.percentage === 100
      ? 'enforced'
      : 'partial';
  const spf: MechanismState = !s.spf ? 'missing' : s.spf.all === '-all' ? 'enforced' : 'partial';
  const dkim: MechanismState = s.dkim.length === 0 ? 'missing' : s.dkim.every(strongKey) ? 'enforced' : 'partial';
  const mtaSts: MechanismState =
    !s.mtaSts || s.mtaSts.mode === 'none' ? 'missing' : s.mtaSts.mode === 'enforce' ? 'enforced' : 'partial';
  const tlsRpt: MechanismState = s.tlsRpt && s.tlsRpt.rua.length ? 'enforced' : 'missing';
  // Receivers show a BIMI logo only under an enforced DMARC policy.
  const bimi: MechanismState = !s.bimi ? 'missing' : dmarc === 'enforced' ? 'enforced' : 'partial';
  const states = { dmarc, spf, dkim, mta_sts: mtaSts, tls_rpt: tlsRpt, bimi };
  const score = Math.round(
    (Object.keys(WEIGHTS) as Array<keyof typeof WEIGHTS>).reduce((sum, k) => sum + WEIGHTS[k] * SHARE[states[k]], 0),
  );
  return { score, ...states };
}

/**
 * A parked domain sends no mail: its SPF authorizes no sender and fails everything
 * (`v=spf1 -all`), which is what M3AAWG advises for non-sending domains.
 */
export const isParked = (s: ZoneSettings): boolean =>
  !!s.spf && s.spf.all === '-all' && s.spf.include.length === 0 && s.spf.ip4.length === 0 && s.spf.ip6.length === 0;
