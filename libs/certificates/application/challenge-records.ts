import { Inject, Injectable, Optional } from '@nestjs/common';
import { promises as dns } from 'node:dns';
import { EventStreams } from '../../eventstore/event-streams';
import { AppError } from '../../shared/errors';
import { zoneDecider } from '../../zones/domain/zone.decider';
import { zoneStream } from '../../zones/domain/zone.events';
import { DnsService } from '../../zones/dns.module';
import { ChallengeRecord } from '../domain/certificate.events';
import { challengeTxtSets } from '../domain/issuance.process';

/** Short TTL: the records live for the seconds a validation takes. */
const CHALLENGE_TTL = 60;
const LIVE_CHECK_TIMEOUT_MS = 10_000;

const quoted = (v: string) => `"${v}"`;

export interface ChallengeZone {
  zoneId: string;
  accountId: number;
  certificateId: string;
}

/**
 * Publishes and removes `_acme-challenge` TXT values through the zones context's own
 * command path (`AddRecordValues` / `RemoveRecordValues` on the zone stream), so they
 * are `ZoneRRsetsChanged` events the DNS server serves like any other record. Adding a
 * value already there, or removing one already gone, appends nothing: a step repeated
 * after a crash leaves no duplicate.
 */
@Injectable()
export class ChallengeRecords {
  constructor(
    private readonly streams: EventStreams,
    @Optional() @Inject(DnsService) private readonly dns?: DnsService,
  ) {}

  async publish(zone: ChallengeZone, records: ChallengeRecord[], at: string): Promise<void> {
    for (const set of challengeTxtSets(records)) {
      await this.streams.handle(
        zoneStream(zone.zoneId),
        zoneDecider,
        { type: 'AddRecordValues', accountId: zone.accountId, subname: set.subname, rrtype: 'TXT', ttl: CHALLENGE_TTL, values: set.values.map(quoted), at },
        metadataOf(zone),
      );
    }
  }

  async remove(zone: ChallengeZone, records: ChallengeRecord[], at: string): Promise<void> {
    for (const set of challengeTxtSets(records)) {
      try {
        await this.streams.handle(
          zoneStream(zone.zoneId),
          zoneDecider,
          { type: 'RemoveRecordValues', accountId: zone.accountId, subname: set.subname, rrtype: 'TXT', values: set.values.map(quoted), at },
          metadataOf(zone),
        );
      } catch (e) {
        // A deleted zone serves nothing any more: nothing is left to remove.
        if (!(e instanceof AppError && e.status === 404)) throw e;
      }
    }
  }

  /**
   * Waits until this process's own DNS server answers every value (the index is fed
   * asynchronously from the event stream), when the process runs the `dns` role;
   * elsewhere the propagation delay alone covers it.
   */
  async waitUntilServed(zoneName: string, records: ChallengeRecord[]): Promise<void> {
    const port = this.dns?.enabled ? this.dns.port : null;
    if (!port) return;
    const resolver = new dns.Resolver({ timeout: 1000, tries: 1 });
    resolver.setServers([`127.0.0.1:${port}`]);
    const deadline = Date.now() + LIVE_CHECK_TIMEOUT_MS;
    for (const set of challengeTxtSets(records)) {
      const name = set.subname ? `${set.subname}.${zoneName}` : zoneName;
      for (;;) {
        const seen = await resolver.resolveTxt(name).then((r) => r.map((c) => c.join('')), () => [] as string[]);
        if (set.values.every((v) => seen.includes(v)) || Date.now() > deadline) break;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  }
}

const metadataOf = (z: ChallengeZone) => ({ actor: 'system:certificates', account_id: z.accountId, causation_id: z.certificateId });
