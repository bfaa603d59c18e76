import { ZoneSettings } from './records';

/**
 * Settings that are valid but will not work as the owner probably expects; shown with the
 * settings (`warnings`), never refused.
 */
export function advisories(zone: string, s: ZoneSettings): string[] {
  const out: string[] = [];
  const inZone = (domain: string) => domain === zone || domain.endsWith(`.${zone}`);
  if (s.dmarc) {
    if (s.dmarc.rua.length === 0)
      out.push('dmarc.rua: no aggregate report address, so the DMARC wizard receives no data');
    for (const [field, uris] of [
      ['rua', s.dmarc.rua],
      ['ruf', s.dmarc.ruf],
    ] as const) {
      for (const uri of uris) {
        const domain = uri.slice(uri.lastIndexOf('@') + 1);
        if (!inZone(domain)) {
          out.push(
            `dmarc.${field}: receivers send reports to ${domain} only if it publishes "v=DMARC1" at ` +
              `${zone}._report._dmarc.${domain} (RFC 7489 §7.1)`,
          );
        }
      }
    }
  }
  if (s.bimi && (!s.dmarc || s.dmarc.policy === 'none' || s.dmarc.percentage < 100)) {
    out.push('bimi: mailbox providers show the logo only with DMARC at p=quarantine or p=reject for 100% of messages');
  }
  return out;
}
