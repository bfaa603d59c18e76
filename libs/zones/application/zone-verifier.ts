import { Inject, Injectable } from '@nestjs/common';
import { promises as dns } from 'node:dns';
import { APP_CONFIG, AppConfig } from '../../shared/config';
import { allAncestors } from '../domain/zone-ownership';
import { askNs } from './authority-query';

export type VerifyOutcome = { ok: true; method: 'ns' | 'txt' } | { ok: false; reason: string };

const norm = (n: string) => n.toLowerCase().replace(/\.$/, '');
/** Parent name servers asked at most, in turn, until one answers. */
const MAX_PARENT_SERVERS = 4;

type Delegation = { parent: string; nameservers: string[] } | { problem: string };

/**
 * Checks that an account controls a zone, through VERIFY_RESOLVER (host:port) or the
 * system's resolvers when unset: either the zone's parent delegates it to every one of the
 * service's name servers, or the TXT record at the verification name holds the zone's token.
 *
 * Neither may rest on what this service serves from the claimant's own records (contract
 * §4): the resolver may be, or forward to, this service, which answers the zone's apex NS
 * with its own name servers and any TXT the claimant put in the zone. So the NS method asks
 * the parent zone's servers, without recursion, for the delegation they publish, and the
 * TXT method is refused when the claimant's records here hold the token (the handler knows).
 */
@Injectable()
export class ZoneVerifier {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  private resolver(): dns.Resolver {
    const resolver = new dns.Resolver({ timeout: 2000, tries: 2 });
    if (this.config.verifyResolver) resolver.setServers([this.config.verifyResolver]);
    return resolver;
  }

  /** `servedHere`: the claimant's own records at this service hold the token at `recordName`. */
  async verify(zone: string, recordName: string, token: string, servedHere = false): Promise<VerifyOutcome> {
    const resolver = this.resolver();
    const [delegation, txt] = await Promise.all([
      this.delegation(resolver, zone),
      resolver.resolveTxt(recordName).then(
        (r) => r.map((chunks) => chunks.join('')),
        (e: NodeJS.ErrnoException) => e.code ?? 'error',
      ),
    ]);
    const seen = Array.isArray(txt) && txt.includes(token);
    if (seen && !servedHere) return { ok: true, method: 'txt' };
    const ours = this.config.nameservers.map(norm);
    if ('nameservers' in delegation && ours.every((n) => delegation.nameservers.includes(n)))
      return { ok: true, method: 'ns' };
    const nsSeen =
      'problem' in delegation
        ? delegation.problem
        : `the parent zone ${delegation.parent} delegates ${zone} to ` +
          `${delegation.nameservers.join(', ') || 'no name servers'}, expected ${ours.join(', ')}`;
    const txtSeen = seen
      ? `the token at ${recordName} is in this zone's own records here, and this service's own answer proves ` +
        `nothing: remove it here and publish it at the zone's current DNS provider`
      : Array.isArray(txt)
        ? `no TXT at ${recordName} holds the token`
        : `TXT lookup of ${recordName} failed (${txt})`;
    return { ok: false, reason: `${nsSeen}; ${txtSeen}` };
  }

  /**
   * The delegation of `zone` as its parent publishes it: the parent zone is the nearest name
   * above with an NS set (through the resolver), whose servers are asked with RD=0. A
   * referral is the parent's own data. An authoritative answer (the parent's servers host the
   * child too) counts only when those servers are not this service's: here it would be the
   * claimant's own zone answering.
   */
  private async delegation(resolver: dns.Resolver, zone: string): Promise<Delegation> {
    let parent: string | null = null;
    let servers: string[] = [];
    for (const candidate of allAncestors(zone)) {
      const found = await resolver.resolveNs(candidate).then(
        (r) => r.map(norm),
        (e: NodeJS.ErrnoException) => e.code ?? 'error',
      );
      if (Array.isArray(found) && found.length > 0) {
        [parent, servers] = [candidate, found];
        break;
      }
      if (!Array.isArray(found) && found !== 'ENODATA' && found !== 'ENOTFOUND')
        return {
          problem: `the parent zone of ${zone} could not be found: NS lookup of ${candidate} failed (${found})`,
        };
    }
    if (!parent) return { problem: `the parent zone of ${zone} could not be found through the resolver` };
    const hostedHere = servers.some((s) => this.config.nameservers.includes(s));
    // IPv4 first; IPv6 only for servers without an IPv4 address.
    const addressOf = async (n: string) => {
      const v4 = await resolver.resolve4(n).catch(() => [] as string[]);
      return v4.length > 0 ? v4 : resolver.resolve6(n).catch(() => [] as string[]);
    };
    const addressesOf = async (names: string[]) => (await Promise.all(names.map(addressOf))).flat();
    const addresses = (await addressesOf(servers.slice(0, MAX_PARENT_SERVERS))).slice(0, MAX_PARENT_SERVERS);
    if (addresses.length === 0)
      return { problem: `the name servers of the parent zone ${parent} (${servers.join(', ')}) have no address` };
    const ourAddresses = hostedHere ? [] : await addressesOf(this.config.nameservers);
    const port = this.config.verifyAuthorityPort;
    for (const address of addresses) {
      const answer = await askNs(address, port, zone).catch(() => null);
      if (!answer) continue;
      const fromHere = hostedHere || ourAddresses.includes(address) || this.isOwnListener(address, port);
      if (answer.authoritative && fromHere) {
        return {
          problem:
            `the parent zone ${parent} is served by this service, which answers for ${zone} from your own ` +
            `zone: delegate ${zone} at its parent's DNS provider`,
        };
      }
      return { parent, nameservers: answer.nameservers };
    }
    return { problem: `no name server of the parent zone ${parent} answered` };
  }

  private isOwnListener(address: string, port: number): boolean {
    const host = this.config.dnsHost;
    return (
      port === this.config.dnsPort &&
      (host === address || ((host === '0.0.0.0' || host === '::') && address.startsWith('127.')))
    );
  }
}
