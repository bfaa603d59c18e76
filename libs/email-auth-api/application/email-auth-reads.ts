import { Injectable } from '@nestjs/common';
import { Principal } from '../../auth/principal';
import { emailAuthDecider, EmailAuthState } from '../../email-auth/domain/email-auth.decider';
import { emailAuthStream } from '../../email-auth/domain/email-auth.events';
import { dmarcRecord, generatedRecords } from '../../email-auth/domain/records';
import { spfRecord } from '../../email-auth/domain/spf';
import { recommend, stageConfig } from '../../email-auth/domain/stages';
import { EventStreams } from '../../eventstore/event-streams';
import { EMAIL_AUTH_EVENTS } from '../../../projections/email-auth-events.projection';
import { ProjectionEngine } from '../../projection-engine/projection-engine';
import { compliance, isParked } from '../domain/compliance';
import { afterCursor, CursorPosition, page } from '../domain/cursor';
import { entryView, EventLogType } from '../domain/event-log';
import { LiveRecords } from '../../email-auth/application/live-records';
import { VisibleDomains, VisibleZone } from './visible-domains';

const hostingMode = (z: VisibleZone) =>
  z.verified_by === 'txt' ? 'records_only' : z.verified_by === 'ns' ? 'delegated' : null;

/**
 * The read side of the email-auth API over what exists today: zone settings (the
 * `emailauth-<zone>` stream, whose folded state the stream cache keeps), the wizard's
 * progression and recommendation (libs/email-auth's own `recommend`), the event log
 * projection, and live DNS. Report-backed reads (summary, sources, reports, failure
 * reports, TLS-RPT) belong to the report ingestion context's read models.
 */
@Injectable()
export class EmailAuthReads {
  constructor(
    private readonly visible: VisibleDomains,
    private readonly streams: EventStreams,
    private readonly live: LiveRecords,
    private readonly projections: ProjectionEngine,
  ) {}

  private async settings(p: Principal, zone: string): Promise<EmailAuthState> {
    const { state } = await this.streams.loadState(emailAuthStream(zone), emailAuthDecider);
    // Settings an earlier owner of the name left are not this account's.
    return state.accountId === p.accountId
      ? state
      : { ...emailAuthDecider.initialState(), zone, accountId: p.accountId };
  }

  private summary(zone: VisibleZone, s: EmailAuthState) {
    return {
      domain: zone.name,
      status: isParked(s) ? 'parked' : 'active',
      hosting_mode: hostingMode(zone),
      compliance: compliance(s),
    };
  }

  async domains(p: Principal) {
    const zones = await this.visible.list(p);
    return { data: await Promise.all(zones.map(async (z) => this.summary(z, await this.settings(p, z.name)))) };
  }

  async domain(p: Principal, raw: string) {
    const zone = await this.visible.get(p, raw);
    const s = await this.settings(p, zone.name);
    const records = await this.live.check(zone.name, generatedRecords(s));
    return { ...this.summary(zone, s), records, all_live: records.every((r) => r.live) };
  }

  async policy(p: Principal, raw: string | undefined) {
    const zone = await this.visible.get(p, raw);
    const s = await this.settings(p, zone.name);
    const progression = s.progression;
    const recommendation = progression ? recommend(progression) : null;
    return {
      domain: zone.name,
      policy: s.dmarc?.policy ?? null,
      subdomain_policy: s.dmarc?.subdomain_policy ?? null,
      percentage: s.dmarc?.percentage ?? null,
      record: s.dmarc ? dmarcRecord(s.dmarc) : null,
      wizard:
        progression && recommendation
          ? {
              stage: progression.current_stage,
              days_at_stage: progression.days_at_current_stage,
              recommended_min_days: stageConfig(progression.current_stage).minDays,
              messages_at_stage: progression.messages_at_stage,
              pass_rate_at_stage: progression.pass_rate_at_stage,
              recommendation: recommendation.recommendation,
              reason: recommendation.reason,
              next_stage: recommendation.next_stage,
              ready_to_advance: recommendation.ready_to_advance,
              blockers: recommendation.blockers,
            }
          : null,
    };
  }

  async senders(p: Principal, raw: string | undefined) {
    const zone = await this.visible.get(p, raw);
    const s = await this.settings(p, zone.name);
    return {
      domain: zone.name,
      spf: s.spf
        ? {
            record: spfRecord(s.spf),
            include: s.spf.include,
            ip4: s.spf.ip4,
            ip6: s.spf.ip6,
            all: s.spf.all,
            dns_lookups: s.spfLookups,
          }
        : null,
      // Public values only: the service never stores a private key.
      dkim: s.dkim.map((k) => ({
        selector: k.selector,
        name: `${k.selector}._domainkey.${zone.name}`,
        key_type: k.key_type,
        key_bits: k.key_bits,
        public_key: k.public_key,
        created_at: k.created_at,
      })),
    };
  }

  async events(
    p: Principal,
    q: { since: string | null; types: EventLogType[]; cursor: CursorPosition | null; limit: number },
  ) {
    const zones = (await this.visible.list(p)).map((z) => z.name);
    const filter = {
      account_id: p.accountId,
      domain: { $in: zones },
      ...(q.types.length ? { type: { $in: q.types } } : {}),
      ...(q.since ? { occurred_at: { $gte: q.since } } : {}),
      ...afterCursor(q.cursor),
    };
    const docs = await this.projections
      .readModel(EMAIL_AUTH_EVENTS)
      .find(filter, { sort: { occurred_at: -1, _id: -1 }, limit: q.limit + 1 });
    const { items, next_cursor } = page(docs, q.limit, (d) => d.occurred_at);
    return { data: items.map(entryView), next_cursor };
  }
}
