import { Inject, Injectable } from '@nestjs/common';
import { promises as dns } from 'node:dns';
import { APP_CONFIG, AppConfig } from '../../shared/config';

export type VerifyOutcome = { ok: true; method: 'ns' | 'txt' } | { ok: false; reason: string };

const norm = (n: string) => n.toLowerCase().replace(/\.$/, '');

/**
 * Checks that an account controls a zone, through VERIFY_RESOLVER (host:port) or the
 * system's resolvers when unset: either the zone's NS set, as the world sees it, holds
 * every one of the service's name servers, or the TXT record at the verification name
 * holds the zone's token.
 */
@Injectable()
export class ZoneVerifier {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  private resolver(): dns.Resolver {
    const resolver = new dns.Resolver({ timeout: 2000, tries: 2 });
    if (this.config.verifyResolver) resolver.setServers([this.config.verifyResolver]);
    return resolver;
  }

  async verify(zone: string, recordName: string, token: string): Promise<VerifyOutcome> {
    const resolver = this.resolver();
    const [ns, txt] = await Promise.all([
      resolver.resolveNs(zone).then(
        (r) => r.map(norm),
        (e: NodeJS.ErrnoException) => e.code ?? 'error',
      ),
      resolver.resolveTxt(recordName).then(
        (r) => r.map((chunks) => chunks.join('')),
        (e: NodeJS.ErrnoException) => e.code ?? 'error',
      ),
    ]);
    if (Array.isArray(txt) && txt.includes(token)) return { ok: true, method: 'txt' };
    const ours = this.config.nameservers.map(norm);
    if (Array.isArray(ns) && ours.every((n) => ns.includes(n))) return { ok: true, method: 'ns' };
    const nsSeen = Array.isArray(ns) ? `NS records are ${ns.join(', ') || 'empty'}` : `NS lookup failed (${ns})`;
    const txtSeen = Array.isArray(txt) ? `no TXT at ${recordName} holds the token` : `TXT lookup of ${recordName} failed (${txt})`;
    return { ok: false, reason: `${nsSeen}, expected ${ours.join(', ')}; ${txtSeen}` };
  }
}
