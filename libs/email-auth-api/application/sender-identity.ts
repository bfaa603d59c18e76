import { Inject, Injectable } from '@nestjs/common';
import { promises as dns } from 'node:dns';
import { IpIntel } from '../../dns-analytics/application/ip-intel';
import { APP_CONFIG, AppConfig } from '../../shared/config';
import { rowNetworkJson, sourceIpOf } from '../domain/report-row-json';
import { asnNumber, identifySender } from '../domain/sending-services';

export interface SourceIdentity {
  service: { id: string; name: string } | null;
  identified_by: 'ptr' | 'asn' | null;
  ptr: string | null;
  country: string;
  asn: string;
  as_org: string;
}

/** PTR answers kept (positive and negative) and for how long: reverse DNS of mail senders rarely changes. */
const PTR_CACHE_SIZE = 20_000;
const PTR_TTL_MS = 6 * 3_600_000;
/** Report-row network JSON kept, by source IP. */
const NETWORK_JSON_CACHE_SIZE = 50_000;
/** One lookup's budget: a slow reverse zone never holds a request for long. */
const PTR_TIMEOUT_MS = 1_500;

/**
 * Who sent from an address: reverse DNS (through VERIFY_RESOLVER when set, as the live
 * record checks, else the system resolvers; cached, bounded, with a timeout) and the
 * network from the shipped IP data (IpIntel, shared with DNS analytics), matched against
 * the known-services table. Lazy with a cache rather than at projection time, so read
 * models stay a pure function of the events.
 */
@Injectable()
export class SenderIdentity {
  private readonly resolver = new dns.Resolver({ timeout: PTR_TIMEOUT_MS, tries: 1 });
  private readonly ptrCache = new Map<string, { names: string[]; until: number }>();
  /** A report row's country-and-network JSON by its source IP's JSON string (bounded; cleared whole when full, as IpIntel's own cache). */
  private networkJsonOf = new Map<string, string>();

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly intel: IpIntel,
  ) {
    if (config.verifyResolver) this.resolver.setServers([config.verifyResolver]);
  }

  private intelLoaded = false;

  async ready(): Promise<void> {
    await this.intel.ready();
    this.intelLoaded = true;
  }

  /** Country and network only (report rows): no DNS. */
  network(ip: string) {
    const info = this.intel.lookup(ip);
    return { country: info.country, asn: info.asn, as_org: info.asOrg };
  }

  /**
   * The same as JSON, as a report row carries it (see report-row-json.ts), for the
   * address held in `sourceIpJson`: a page of rows asks for 100 of them.
   */
  networkJson(sourceIpJson: string): string {
    let json = this.networkJsonOf.get(sourceIpJson);
    if (json !== undefined) return json;
    const info = this.intel.lookup(sourceIpOf(sourceIpJson));
    json = rowNetworkJson({ country: info.country, asn: info.asn, as_org: info.asOrg });
    // Only answers from loaded data are kept (before ready() everything is Unknown).
    if (this.intelLoaded) {
      if (this.networkJsonOf.size >= NETWORK_JSON_CACHE_SIZE) this.networkJsonOf = new Map();
      this.networkJsonOf.set(sourceIpJson, json);
    }
    return json;
  }

  async identify(ip: string, withPtr: boolean): Promise<SourceIdentity> {
    const net = this.network(ip);
    const names = withPtr ? await this.ptr(ip) : [];
    const { service, by } = identifySender(names, asnNumber(net.asn));
    return {
      service: service ? { id: service.id, name: service.name } : null,
      identified_by: by,
      ptr: names[0] ?? null,
      ...net,
    };
  }

  private async ptr(ip: string): Promise<string[]> {
    const now = Date.now();
    const hit = this.ptrCache.get(ip);
    if (hit && hit.until > now) return hit.names;
    const names = await this.resolver.reverse(ip).catch(() => [] as string[]);
    // Bounded: the oldest entry goes first (Map keeps insertion order).
    if (this.ptrCache.size >= PTR_CACHE_SIZE) this.ptrCache.delete(this.ptrCache.keys().next().value!);
    this.ptrCache.delete(ip);
    this.ptrCache.set(ip, { names, until: now + PTR_TTL_MS });
    return names;
  }
}
