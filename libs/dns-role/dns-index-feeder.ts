import { ZoneIndex, type ZoneDefinition } from '../dns-server';
import { CheckpointedConsumer } from '../consumers/checkpointed-consumer';
import { EventStore, Position, RecordedEvent } from '../eventstore/event-store.port';
import { DomainEventUnion, DOMAIN_EVENT_TYPES } from '../domains/domain/domain.events';
import { isAtOrUnder, longestZoneOf } from '../shared/fqdn';
import { ZoneEvent, ZONE_EVENT_TYPES } from '../zones/domain/zone.events';

const HANDLED = new Set<string>([...DOMAIN_EVENT_TYPES, ...ZONE_EVENT_TYPES]);
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
  private readonly zones = new Map<string, ServedZone>();
  private readonly hosts = new Map<string, Host>();
  private consumer: CheckpointedConsumer | null = null;
  /** Zones the event being applied changed: each gets one new serial once it is applied. */
  private readonly touched = new Set<string>();
  private readonly waiters: Array<{ commit: bigint; resolve: () => void }> = [];

  constructor(
    private readonly store: EventStore,
    readonly index: ZoneIndex,
    private readonly options: {
      ddnsZones: string[];
      nameservers: string[];
      log: (msg: string, extra?: Record<string, unknown>) => void;
      /** Another fold over the same subscription (the transfer ACL), given its events before the index. */
      also?: { handles: ReadonlySet<string>; apply(event: RecordedEvent): void };
    },
  ) {}

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
          this.options.log('dns index: event not applied', { type: event.type, stream: event.streamId, error: (e as Error).message });
        } finally {
          this.bumpTouched(event.created.getTime());
        }
      },
      batchDone: () => this.settleWaiters(),
      log: (msg, extra) => this.options.log(`dns index: ${msg}`, extra as Record<string, unknown>),
    });
    this.consumer.start();
    await this.waitFor(head);
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
    const e = { type: event.type, data: event.data } as DomainEventUnion | ZoneEvent;
    switch (e.type) {
      case 'ZoneImported':
        this.putZone(e.data.name, String(e.data.account_id), at);
        for (const r of e.data.rrsets) this.index.setRRset(e.data.name, r.subname, r.type, r.ttl, r.records);
        this.replaceHostsUnder(e.data.name);
        // A serial after the import's records: the transfer journal starts from it (journal.ts).
        this.touched.add(e.data.name);
        return;
      case 'ZoneRRsetsChanged':
        for (const r of e.data.rrsets) this.index.setRRset(e.data.name, r.subname, r.type, r.ttl, r.records);
        // A host's own addresses win over zone records at the same name.
        this.replaceHostsUnder(e.data.name);
        this.touched.add(e.data.name);
        return;
      case 'ZoneVerified':
        return;
      case 'ZoneDeleted':
        this.index.removeZone(e.data.name);
        this.zones.delete(e.data.name);
        this.replaceHostsUnder(e.data.name);
        return;
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
        const families: Family[] = [...(host.ipv4 !== ipv4 ? ['A' as const] : []), ...(host.ipv6 !== ipv6 ? ['AAAA' as const] : [])];
        host.ipv4 = ipv4;
        host.ipv6 = ipv6;
        this.placeHost(e.data.fqdn, families);
        return;
      }
      case 'DomainDeleted': {
        const zone = longestZoneOf(e.data.fqdn, this.zones.keys());
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

  private placeHost(fqdn: string, families: Family[] = ['A', 'AAAA']): void {
    const host = this.hosts.get(fqdn);
    const zone = longestZoneOf(fqdn, this.zones.keys());
    if (!host || !zone) return; // a host whose zone was deleted is kept but not served
    const owner = { accountId: host.accountId, domain: fqdn };
    for (const type of families) {
      const address = type === 'A' ? host.ipv4 : host.ipv6;
      this.index.setRRset(zone, `${fqdn}.`, type, host.ttl, address ? [address] : [], owner);
    }
    this.touched.add(zone);
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
      this.index.putZone(this.definition(name, zone.accountId, zone.serial));
    }
    this.touched.clear();
  }

  private definition(name: string, accountId: string | null, serial: number): ZoneDefinition {
    const { nameservers } = this.options;
    return {
      name,
      ownerAccountId: accountId,
      soa: { mname: nameservers[0], rname: `hostmaster.${name}`, serial: serial >>> 0, refresh: 3600, retry: 600, expire: 604800, minimum: NEGATIVE_TTL },
      ttl: APEX_TTL,
      nameservers,
    };
  }
}
