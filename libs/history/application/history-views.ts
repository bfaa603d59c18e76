import { Injectable } from '@nestjs/common';
import { ZoneTimeTravel } from '../../zones/application/zone-time-travel.port';
import { verificationRecordName } from '../../zones/domain/zone.events';
import { HistoryQueries, parseAsOf } from './history.queries';

/** The zone object of contract §4 as it was at an instant (the same shape as its GET). */
@Injectable()
export class HistoryViews implements ZoneTimeTravel {
  constructor(private readonly queries: HistoryQueries) {}

  async zoneAsOf(accountId: number, zone: string, asOf: unknown) {
    const at = parseAsOf(asOf, this.queries.now());
    await this.queries.caughtUp();
    const subject = await this.queries.zoneSubject(accountId, zone, at);
    const { records } = await this.queries.zoneAt(subject, at);
    const verified = subject.verified_at !== null && subject.verified_at <= at;
    return {
      id: subject.id,
      name: subject.name,
      status: verified ? 'verified' : 'pending_verification',
      verification: { record_name: verificationRecordName(subject.name), record_value: subject.verification_token },
      nameservers: subject.nameservers,
      created_at: subject.created_iso,
      verified_at: verified ? subject.verified_iso : null,
      records: records.map((r) => ({ subname: r.subname, type: r.type, ttl: r.ttl, records: r.records })),
    };
  }
}
