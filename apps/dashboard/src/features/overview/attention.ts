import type { UptimeRecord, Zone } from '../../api/types';
import type { Certificate } from '../certificates/types';

/** One thing on the overview that needs the owner: what, how bad, and where to act. */
export interface AttentionItem {
  key: string;
  severity: 'critical' | 'warning';
  text: string;
  /** Route of the screen where it is acted on. */
  to: string;
  action: string;
}

/** Certificates expiring within this many days are named (renewal starts at 30 days; 14 left means it has not worked). */
export const EXPIRY_WARNING_DAYS = 14;
const DAY_MS = 86_400_000;

export function hostsDown(records: readonly UptimeRecord[]): AttentionItem[] {
  return records
    .filter((r) => r.current_status === 'down')
    .map((r) => ({
      key: `down-${r.domain_id}`,
      severity: 'critical',
      text: `${r.fqdn} is down${r.error ? ` (${r.error})` : ''}.`,
      to: `/uptime/${r.domain_id}`,
      action: `See uptime of ${r.fqdn}`,
    }));
}

const names = (c: Certificate) => [c.domain, ...c.sans.filter((s) => s !== c.domain)].join(', ');

export function certificateProblems(certs: readonly Certificate[], now: number): AttentionItem[] {
  const items: AttentionItem[] = [];
  for (const c of certs) {
    const to = `/certificates/${encodeURIComponent(c.id)}`;
    const action = `Open the certificate for ${c.domain}`;
    if (c.status === 'failed')
      items.push({
        key: `cert-${c.id}`,
        severity: 'critical',
        text: `The certificate for ${names(c)} failed to issue.`,
        to,
        action,
      });
    else if (c.status === 'expired')
      items.push({
        key: `cert-${c.id}`,
        severity: 'critical',
        text: `The certificate for ${names(c)} has expired.`,
        to,
        action,
      });
    else if (c.status === 'issued' && c.expires_at) {
      const days = Math.floor((Date.parse(c.expires_at) - now) / DAY_MS);
      if (days <= EXPIRY_WARNING_DAYS) {
        items.push({
          key: `cert-${c.id}`,
          severity: days <= 3 ? 'critical' : 'warning',
          text:
            `The certificate for ${names(c)} expires ` +
            `${days <= 0 ? 'today' : `in ${days} day${days === 1 ? '' : 's'}`}${c.auto_renew ? '' : ' and does not renew by itself'}.`,
          to,
          action,
        });
      }
    }
  }
  return items;
}

export function zonesNotVerified(zones: readonly Zone[]): AttentionItem[] {
  return zones
    .filter((z) => z.status !== 'verified')
    .map((z) => ({
      key: `zone-${z.name}`,
      severity: 'warning',
      text: `${z.name} is not verified yet: certificates, DDNS hosts and email authentication under it wait for it.`,
      to: `/zones/${encodeURIComponent(z.name)}`,
      action: `Verify ${z.name}`,
    }));
}

/** An alert entry of the email-auth event log (`GET /email-auth/events`). */
export interface AlertEntry {
  id: string;
  type: 'alert.raised' | 'alert.resolved';
  occurred_at: string;
  domain: string;
  severity: string;
  title: string;
  data: { rule?: string };
}

/** Alerts still open: per zone and rule, the newest entry is a raise (the log is newest first). */
export function openAlerts(entries: readonly AlertEntry[]): AttentionItem[] {
  const seen = new Set<string>();
  const items: AttentionItem[] = [];
  for (const e of entries) {
    const key = `${e.domain} ${e.data.rule ?? e.title}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (e.type === 'alert.raised') {
      items.push({
        key: `alert-${e.id}`,
        severity: e.severity === 'critical' ? 'critical' : 'warning',
        text: e.title,
        to: `/email-auth/${encodeURIComponent(e.domain)}`,
        action: `Email authentication of ${e.domain}`,
      });
    }
  }
  return items;
}
