import { ZoneIndex, type ZoneDefinition } from '../dns-server';
import { CheckpointedConsumer } from '../consumers/checkpointed-consumer';
import { EventStore, Position, RecordedEvent } from '../eventstore/event-store.port';
import { DomainEventUnion, DOMAIN_EVENT_TYPES } from '../domains/domain/domain.events';
import { isAtOrUnder, isStrictlyUnder } from '../shared/fqdn';
import { applyRRsets } from '../zones/domain/rrsets';
import {
  OverlapAllowances,
  unallowedServiceConflicts,
  zoneAncestors,
  ZoneOverlapAllowed,
  ZONE_OWNERSHIP_EVENT_TYPES,
} from '../zones/domain/zone-ownership';
import { RRset, rrsetKey, ZoneEvent, ZONE_EVENT_TYPES } from '../zones/domain/zone.events';
import { DnssecEvent, DNSSEC_EVENT_TYPES } from '../dnssec/domain/dnssec.events';
import { ZoneSigner } from './zone-signer';

const HANDLED = new Set<string>([
  ...DOMAIN_EVENT_TYPES,
  ...ZONE_EVENT_TYPES,
  ...ZONE_OWNERSHIP_EVENT_TYPES,
  ...DNSSEC_EVENT_TYPES,
]);
const DNSSEC_TYPES = new Set<string>(DNSSEC_EVENT_TYPES);
/** TTL of the apex SOA/NS; negative answers use the SOA minimum (60 s) so new hosts appear fast. */
const APEX_TTL = 3600;
const NEGATIVE_TTL = 60;

interface Host {
  accountId: string;
  ttl: number;
  ipv4: string | null;
  ipv6: string | null;
}

type Family = 'A' | 'AAAA';

interface ServedZone {
  accountId: string | null;
  serial: number;
}

/** An imported zone, served or not: `seq` is its import order (the earlier of two conflicting zones wins). */
interface LiveZone {
  accountId: number;
  seq: number;
}

/** The serial after `serial` for a change at `at` (ms): its time in seconds, else one more (RFC 1982 arithmetic is not needed before 2106). */
export const nextSerial = (serial: number, at: number): number => Math.max(Math.floor(at / 1000), serial + 1);

/**
 * Feeds the DNS server's in-memory index as an in-memory consumer on the consumer
 * runtime: every DNS process runs its own from the first event (no lease, no stored
 * checkpoint — the index is rebuilt at start), so an appended change is served as soon
 * as the event arrives. It keeps just enough state (served zones,
 * dynamic-DNS hosts) to place each host in the longest zone that holds it, and to move
 * hosts when a zone above them is imported or deleted.
 */
export class DnsIndexFeeder {
  /** Zones in the index. */
  private readonly zones = new Map<string, ServedZone>();
  /**
   * Every imported zone, and how many of them lie below each name: the ownership rules
   * (contract §4) are decided here, when a zone arrives, leaves or an overlap is allowed,
   * never per query. A zone that breaks them (data imported before they were enforced) is
   * held out of the index with its records, so the names it would shadow keep their answers
   * from the zone that is allowed to serve them; it is served once nothing earlier stands
   * against it (that zone deleted, or the overlap allowed).
   */
  private readonly live = new Map<string, LiveZone>();
  private readonly below = new Map<string, number>();
  private readonly held = new Map<string, Map<string, RRset>>();
  private readonly allowances = new OverlapAllowances();
  private imports = 0;
  private readonly hosts = new Map<string, Host>();
  private consumer: CheckpointedConsumer | null = null;
  /** Zones the event being applied changed: each gets one new serial once it is applied. */
  private readonly touched = new Set<string>();
  /** Zones whose serial moved in the batch being applied (publishSerials). */
  private readonly serialMoved = new Set<string>();
  private readonly waiters: Array<{ commit: bigint; resolve: () => void }> = [];
  private readonly signer: ZoneSigner;

  constructor(
    private readonly store: EventStore,
    readonly index: ZoneIndex,
    private readonly options: {
      ddnsZones: string[];
      nameservers: string[];
      secretKey?: string;
      log: (msg: string, extra?: Record<string, unknown>) => void;
      /** Another fold over the same subscription (the transfer ACL), given its events before the index. */
      also?: { handles: ReadonlySet<string>; apply(event: RecordedEvent): void };
      /** Called once a batch of events is in the index (a leader ships it to its followers then). */
      batchApplied?: () => void;
    },
  ) {
    this.signer = new ZoneSigner(index, options.secretKey, options.log, (zone) => this.signed(zone));
  }

  /** Serves the dynamic-DNS zones, then resolves once every event up to the current head is in the index. */
  async start(): Promise<void> {
    const now = Date.now();
    for (const zone of this.options.ddnsZones) this.putZone(zone, null, now);
    const head = await this.store.headPosition();
    this.consumer = new CheckpointedConsumer({
      name: 'dns-index',
      store: this.store,
      from: null,
      handles: this.options.also ? new Set([...HANDLED, ...this.options.also.handles]) : HANDLED,
      apply: (event) => {
        try {
          if (this.options.also?.handles.has(event.type)) this.options.also.apply(event);
          if (!HANDLED.has(event.type)) return;
          this.apply(event);
        } catch (e) {
          // One bad event (a record the index refuses) must not stop DNS for everyone else.
          this.options.log('dns index: event not applied', {
            type: event.type,
            stream: event.streamId,
            error: (e as Error).message,
          });
        } finally {
          this.bumpTouched(event.created.getTime());
        }
      },
      batchDone: () => {
        this.publishSerials();
        // A batch of DNSSEC events (enabling appends five) re-signs a zone once, before anyone is told it is served.
        this.signer.flush();
        this.settleWaiters();
        this.options.batchApplied?.();
      },
      log: (msg, extra) => this.options.log(`dns index: ${msg}`, extra as Record<string, unknown>),
    });
    this.consumer.start();
    await this.waitFor(head);
    // Signed zones are signed once the history is in, before the server starts answering.
    this.signer.goLive();
  }

  async stop(): Promise<void> {
    await this.consumer?.stop();
  }

  /** Resolves once the event at `position` has been applied to the index. */
  waitFor(position: Position | null): Promise<void> {
    const at = this.consumer?.position;
    if (!position || (at && at.commit >= position.commit)) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ commit: position.commit, resolve }));
  }

  private settleWaiters(): void {
    const at = this.consumer?.position?.commit ?? -1n;
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      if (this.waiters[i].commit <= at) this.waiters.splice(i, 1)[0].resolve();
    }
  }

  private apply(event: RecordedEvent): void {
    const at = event.created.getTime();
    if (DNSSEC_TYPES.has(event.type)) {
      // Signed when the batch is done (ZoneSigner.flush), and the serial moves then (signed()).
      this.signer.apply({ type: event.type, data: event.data } as DnssecEvent);
      return;
    }
    const e = { type: event.type, data: event.data } as DomainEventUnion | ZoneEvent | ZoneOverlapAllowed;
    switch (e.type) {
      case 'ZoneImported': {
        const { name, account_id: accountId, rrsets } = e.data;
        this.live.set(name, { accountId, seq: ++this.imports });
        for (const above of zoneAncestors(name)) this.below.set(above, (this.below.get(above) ?? 0) + 1);
        if (this.blocked(name)) {
          this.held.set(name, new Map(rrsets.map((r) => [rrsetKey(r), r])));
          this.options.log('dns index: zone not served, it breaks the ownership rules', {
            zone: name,
            account_id: accountId,
          });
          return;
        }
        this.serve(name, accountId, rrsets, at);
        return;
      }
      case 'ZoneOverlapAllowed':
        this.allowances.add(e.data.zone, e.data.account_id);
        this.serveAllowed(at);
        return;
      case 'ZoneRRsetsChanged': {
        const held = this.held.get(e.data.name);
        if (held) {
          this.held.set(e.data.name, applyRRsets(held, e.data.rrsets));
          return;
        }
        for (const r of e.data.rrsets) this.index.setRRset(e.data.name, r.subname, r.type, r.ttl, r.records);
        // A host's own addresses win over zone records at the same name.
        this.replaceHostsUnder(e.data.name);
        this.touched.add(e.data.name);
        return;
      }
      case 'ZoneVerified':
        return;
      case 'ZoneDeleted': {
        const { name } = e.data;
        if (!this.live.delete(name)) return;
        this.signer.forget(name);
        for (const above of zoneAncestors(name)) this.below.set(above, (this.below.get(above) ?? 1) - 1);
        if (this.held.delete(name)) return;
        this.index.removeZone(name);
        this.zones.delete(name);
        this.replaceHostsUnder(name);
        this.serveAllowed(at);
        return;
      }
      case 'DomainCreated': {
        const d = e.data;
        this.hosts.set(d.fqdn, {
          accountId: String(d.account_id),
          ttl: d.ttl,
          ipv4: d.record_type === 'A' ? d.record_ip : null,
          ipv6: d.record_type === 'AAAA' ? d.record_ip : null,
        });
        this.placeHost(d.fqdn);
        return;
      }
      case 'DomainAddressesChanged': {
        const host = this.hosts.get(e.data.fqdn);
        if (!host) return;
        const { ipv4, ipv6 } = e.data.addresses;
        // A DDNS update usually changes one family: only its answers are re-encoded.
        const families: Family[] = host.ipv4 === ipv4 ? [] : ['A'];
        if (host.ipv6 !== ipv6) families.push('AAAA');
        host.ipv4 = ipv4;
        host.ipv6 = ipv6;
        this.placeHost(e.data.fqdn, families);
        return;
      }
      case 'DomainTtlChanged': {
        const host = this.hosts.get(e.data.fqdn);
        if (!host) return;
        host.ttl = e.data.ttl;
        this.placeHost(e.data.fqdn);
        return;
      }
      case 'DomainDeleted': {
        const zone = this.zoneHolding(e.data.fqdn);
        this.hosts.delete(e.data.fqdn);
        if (zone) {
          this.index.removeRRset(zone, `${e.data.fqdn}.`, 'A');
          this.index.removeRRset(zone, `${e.data.fqdn}.`, 'AAAA');
          this.touched.add(zone);
        }
        return;
      }
      default:
        return;
    }
  }

  private serve(name: string, accountId: number, rrsets: Iterable<RRset>, at: number): void {
    this.putZone(name, String(accountId), at);
    for (const r of rrsets) this.index.setRRset(name, r.subname, r.type, r.ttl, r.records);
    this.replaceHostsUnder(name);
    // A serial after the import's records: the transfer journal starts from it (journal.ts).
    this.touched.add(name);
  }

  /**
   * Whether a zone breaks the ownership rules: it conflicts with a service name, or with a
   * zone of another account imported before it, and no operator allowed the overlap. The
   * zones below a name are only scanned when there are some (the count), so an import costs
   * a walk up its labels.
   */
  private blocked(name: string): boolean {
    const zone = this.live.get(name)!;
    const claimant = { zone: name, account_id: zone.accountId };
    if (unallowedServiceConflicts(name, zone.accountId, this.options, this.allowances).length > 0) return true;
    const standsAgainst = (other: string, o: LiveZone) =>
      o.accountId !== zone.accountId &&
      o.seq < zone.seq &&
      !this.allowances.pairAllowed(claimant, { zone: other, account_id: o.accountId });
    for (const above of zoneAncestors(name)) {
      const other = this.live.get(above);
      if (other && standsAgainst(above, other)) return true;
    }
    if ((this.below.get(name) ?? 0) === 0) return false;
    for (const [other, o] of this.live) if (isStrictlyUnder(other, name) && standsAgainst(other, o)) return true;
    return false;
  }

  /** Serves the held zones nothing stands against any more. */
  private serveAllowed(at: number): void {
    for (const [name, rrsets] of this.held) {
      if (this.blocked(name)) continue;
      this.held.delete(name);
      this.serve(name, this.live.get(name)!.accountId, rrsets.values(), at);
    }
  }

  private placeHost(fqdn: string, families: Family[] = ['A', 'AAAA']): void {
    const host = this.hosts.get(fqdn);
    const zone = this.zoneHolding(fqdn);
    if (!host || !zone) return; // a host whose zone was deleted is kept but not served
    // Only in a service zone or a zone of the host's own account: a host of a zone held out of
    // the index (ownership rules) is not served in the zone of the account it would shadow.
    const zoneAccount = this.zones.get(zone)!.accountId;
    if (zoneAccount !== null && zoneAccount !== host.accountId) return;
    const owner = { accountId: host.accountId, domain: fqdn };
    for (const type of families) {
      const address = type === 'A' ? host.ipv4 : host.ipv6;
      this.index.setRRset(zone, `${fqdn}.`, type, host.ttl, address ? [address] : [], owner);
    }
    this.touched.add(zone);
  }

  /**
   * The longest served zone at or above `fqdn`: a walk up its labels (a few lookups), not a
   * scan of every zone, since every DDNS update asks.
   */
  private zoneHolding(fqdn: string): string | null {
    for (let at = 0; ;) {
      const candidate = at === 0 ? fqdn : fqdn.slice(at);
      if (this.zones.has(candidate)) return candidate;
      const dot = fqdn.indexOf('.', at);
      if (dot < 0) return null;
      at = dot + 1;
    }
  }

  private replaceHostsUnder(zone: string): void {
    for (const fqdn of this.hosts.keys()) if (isAtOrUnder(fqdn, zone)) this.placeHost(fqdn);
  }

  private putZone(name: string, accountId: string | null, at: number): void {
    const serial = nextSerial(this.zones.get(name)?.serial ?? 0, at);
    this.zones.set(name, { accountId, serial });
    this.index.putZone(this.definition(name, accountId, serial));
  }

  /**
   * Every event that changes a zone gives it a new SOA serial (contract §18: secondaries
   * must see every change): the event's time in seconds, or one more than the last serial
   * when that is not larger (several changes in a second). Derived from the events in
   * order, so every DNS process computes the same serials, across restarts too.
   */
  private bumpTouched(at: number): void {
    for (const name of this.touched) {
      const zone = this.zones.get(name);
      if (!zone) continue;
      zone.serial = nextSerial(zone.serial, at);
      this.serialMoved.add(name);
    }
    this.touched.clear();
  }

  /**
   * Gives the index the serials the batch moved, once per zone: each event still gets its own
   * serial (the same in every process, derived from the events), but a batch of a thousand DDNS
   * updates re-encodes the apex and closes an IXFR delta once, not a thousand times. A batch is
   * applied in one turn of the DNS thread, so no answer sees its records with the serial before it.
   */
  private publishSerials(): void {
    for (const name of this.serialMoved) {
      const zone = this.zones.get(name);
      if (zone) this.index.putZone(this.definition(name, zone.accountId, zone.serial));
    }
    this.serialMoved.clear();
  }

  /**
   * Keys, signatures, NSEC and CDS are what a zone serves: once they changed, the serial moves
   * so secondaries transfer them (after the signing, so the IXFR delta carries it). Not derived
   * from an event's time, as the signing happens after the events: the clock keeps it rising
   * across restarts, which re-sign every signed zone.
   */
  private signed(zone: string): void {
    if (!this.zones.has(zone)) return;
    this.touched.add(zone);
    this.bumpTouched(Date.now());
    this.publishSerials();
  }

  private definition(name: string, accountId: string | null, serial: number): ZoneDefinition {
    return servedZoneDefinition(name, accountId, serial, this.options.nameservers);
  }
}

/** How a zone is served: its SOA and apex NS from the service's name servers (the history API's `resolve` builds zones with it too). */
export function servedZoneDefinition(
  name: string,
  accountId: string | null,
  serial: number,
  nameservers: string[],
): ZoneDefinition {
  return {
    name,
    ownerAccountId: accountId,
    soa: {
      mname: nameservers[0],
      rname: `hostmaster.${name}`,
      serial: serial >>> 0,
      refresh: 3600,
      retry: 600,
      expire: 604800,
      minimum: NEGATIVE_TTL,
    },
    ttl: APEX_TTL,
    nameservers,
  };
}
