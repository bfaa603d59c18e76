import { Inject, Injectable, Optional } from '@nestjs/common';
import { promises as dns } from 'node:dns';
import { EventStreams } from '../../eventstore/event-streams';
import { AppError } from '../../shared/errors';
import { RecordValues, zoneDecider } from '../../zones/domain/zone.decider';
import { zoneStream } from '../../zones/domain/zone.events';
import { DnsService } from '../../dns-role/dns.module';
import { ChallengeRecord } from '../domain/certificate.events';
import { challengeTxtSets } from '../domain/issuance-plan';

/** Short TTL: the records live for the seconds a validation takes. */
const CHALLENGE_TTL = 60;
const LIVE_CHECK_TIMEOUT_MS = 10_000;

const quoted = (v: string) => `"${v}"`;

export interface ChallengeZone {
  zoneId: string;
  accountId: number;
  certificateId: string;
}

interface Change {
  kind: 'add' | 'remove';
  zone: ChallengeZone;
  sets: RecordValues[];
  at: string;
  resolve: () => void;
  reject: (e: unknown) => void;
}

/**
 * Publishes and removes `_acme-challenge` TXT values through the zones context's own
 * command path (`AddRecordValues` / `RemoveRecordValues` on the zone stream), so they
 * are `ZoneRRsetsChanged` events the DNS server serves like any other record. Adding a
 * value already there, or removing one already gone, appends nothing: a step repeated
 * after a crash leaves no duplicate.
 *
 * Changes to one zone are written one append at a time in this process, and the
 * changes that queue up meanwhile go out together as one append (group commit): fifty
 * certificates under one zone would otherwise fight over the zone stream's revision.
 * Across processes the expected-revision append still decides.
 */
@Injectable()
export class ChallengeRecords {
  private readonly queues = new Map<string, Change[]>();
  private readonly flushing = new Set<string>();

  constructor(
    private readonly streams: EventStreams,
    @Optional() @Inject(DnsService) private readonly dns?: DnsService,
  ) {}

  publish(zone: ChallengeZone, records: ChallengeRecord[], at: string): Promise<void> {
    return this.submit('add', zone, records, at);
  }

  async remove(zone: ChallengeZone, records: ChallengeRecord[], at: string): Promise<void> {
    try {
      await this.submit('remove', zone, records, at);
    } catch (e) {
      // A deleted zone serves nothing any more: nothing is left to remove.
      if (!(e instanceof AppError && e.status === 404)) throw e;
    }
  }

  private submit(kind: Change['kind'], zone: ChallengeZone, records: ChallengeRecord[], at: string): Promise<void> {
    const sets = challengeTxtSets(records).map((s) => ({ subname: s.subname, values: s.values.map(quoted) }));
    return new Promise<void>((resolve, reject) => {
      const queue = this.queues.get(zone.zoneId) ?? [];
      queue.push({ kind, zone, sets, at, resolve, reject });
      this.queues.set(zone.zoneId, queue);
      if (!this.flushing.has(zone.zoneId)) void this.flush(zone.zoneId);
    });
  }

  private async flush(zoneId: string): Promise<void> {
    this.flushing.add(zoneId);
    try {
      for (let queue = this.queues.get(zoneId); queue?.length; queue = this.queues.get(zoneId)) {
        const first = queue[0];
        const batch = queue.filter((c) => c.kind === first.kind && c.zone.accountId === first.zone.accountId);
        this.queues.set(
          zoneId,
          queue.filter((c) => !batch.includes(c)),
        );
        try {
          await this.append(batch);
          for (const c of batch) c.resolve();
        } catch (e) {
          if (batch.length === 1) batch[0].reject(e);
          // One bad change must not fail the others: each is tried alone.
          else for (const c of batch) await this.append([c]).then(c.resolve, c.reject);
        }
      }
    } finally {
      this.flushing.delete(zoneId);
      this.queues.delete(zoneId);
    }
  }

  private append(batch: Change[]) {
    const { kind, zone, at } = batch[0];
    const sets = batch.flatMap((c) => c.sets);
    const command =
      kind === 'add'
        ? { type: 'AddRecordValues' as const, accountId: zone.accountId, rrtype: 'TXT', ttl: CHALLENGE_TTL, sets, at }
        : { type: 'RemoveRecordValues' as const, accountId: zone.accountId, rrtype: 'TXT', sets, at };
    return this.streams.handle(zoneStream(zone.zoneId), zoneDecider, command, {
      actor: 'system:certificates',
      account_id: zone.accountId,
      certificate_ids: batch.map((c) => c.zone.certificateId),
    });
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
        const seen = await resolver.resolveTxt(name).then(
          (r) => r.map((c) => c.join('')),
          () => [] as string[],
        );
        if (set.values.every((v) => seen.includes(v)) || Date.now() > deadline) break;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  }
}
