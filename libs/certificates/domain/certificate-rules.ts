import { Plan } from '../../accounts/domain/account.events';
import { isAtOrUnder, isHostname } from '../../shared/fqdn';
import { AppError, badRequest, forbidden, notFound, validationFailed } from '../../shared/errors';

/** The seed's exact messages (errors table and plan limits). */
export const MESSAGES = {
  paidRequired: 'Certificate management requires paid subscription',
  wildcardElite: 'Wildcard certificates require Elite plan',
  autoRenewPro: 'Auto-renewal requires Pro or Elite plan',
  exists: 'Certificate already exists for domain',
  notUnderZone: 'Domain not under zone',
  zoneNotFound: 'Zone not found or no permission',
  limitReached: 'Certificate limit reached for plan',
  notFound: 'Certificate not found',
} as const;

export const MAX_CERTIFICATES: Record<Plan, number> = { free: 0, plus: 5, pro: 25, elite: 100 };
export const MAX_SANS = 50;

export const wildcardAllowed = (plan: Plan) => plan === 'elite';
export const autoRenewAllowed = (plan: Plan) => plan === 'pro' || plan === 'elite';

export const certificateNotFound = () => notFound(MESSAGES.notFound);

export function requirePaid(plan: Plan): void {
  if (plan === 'free') throw forbidden('plan_required', MESSAGES.paidRequired);
}

export function requireAutoRenewPlan(plan: Plan): void {
  if (!autoRenewAllowed(plan)) throw forbidden('plan_required', MESSAGES.autoRenewPro);
}

export const normalizeName = (n: string) => n.trim().toLowerCase().replace(/\.$/, '');

/** What a create request asks for, after the zone it names has been looked up. */
export interface CertificateRequest {
  plan: Plan;
  /** The caller's verified zone of that name, or null (missing, foreign or unverified). */
  zone: { id: string; name: string } | null;
  domain: string;
  sans: string[];
  wildcard: boolean;
  autoRenew: boolean;
}

/**
 * The seed's plan and zone rules for a create, in the order a client sees them: paid
 * plan, the zone, wildcard and auto-renew plan gates, then the names. Returns every
 * name the certificate will cover, primary first.
 */
export function checkRequest(req: CertificateRequest): string[] {
  requirePaid(req.plan);
  if (!req.zone) throw notFound(MESSAGES.zoneNotFound);
  if (req.wildcard && !wildcardAllowed(req.plan)) throw forbidden('plan_required', MESSAGES.wildcardElite);
  if (req.autoRenew) requireAutoRenewPlan(req.plan);
  const domain = normalizeName(req.domain);
  const sans = [...new Set(req.sans.map(normalizeName))].filter((s) => s !== domain);
  if (sans.length > MAX_SANS) throw validationFailed(`sans: at most ${MAX_SANS} names`);
  for (const [field, name] of [['domain', domain], ...sans.map((s, i) => [`sans[${i}]`, s])] as const) {
    if (!isHostname(name)) throw validationFailed(`${field}: "${name}" is not a valid host name`);
    if (!isAtOrUnder(name, req.zone.name)) throw domainNotUnderZone();
  }
  return [domain, ...(req.wildcard ? [`*.${domain}`] : []), ...sans];
}

export const domainNotUnderZone = (): AppError => badRequest('domain_not_under_zone', MESSAGES.notUnderZone);
