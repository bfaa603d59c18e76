import { Injectable } from '@nestjs/common';
import { EventStreams } from '../../eventstore/event-streams';
import { notFound } from '../../shared/errors';
import { emailAuthDecider, EmailAuthState, PROGRESSION_NOT_FOUND } from '../domain/email-auth.decider';
import { emailAuthStream } from '../domain/email-auth.events';
import { generatedRecords } from '../domain/records';
import { PublishedSpf, publishedSpf } from '../domain/spf';
import { recommend, stageConfig } from '../domain/stages';
import { advisories } from '../domain/advisories';
import { EmailAuthCaller } from './email-auth.commands';
import { Enrolment } from './enrolment';
import { ServedSpfRecords } from './served-spf-records';

/** Reads of a zone's email-authentication settings, from its settings stream (write-side truth). */
@Injectable()
export class EmailAuthQueries {
  constructor(
    private readonly streams: EventStreams,
    private readonly enrolment: Enrolment,
    private readonly spfRecords: ServedSpfRecords,
  ) {}

  async state(caller: EmailAuthCaller, rawZone: string): Promise<EmailAuthState & { zone: string }> {
    const zone = await this.enrolment.check(caller.accountId, rawZone);
    const { state } = await this.streams.loadState(emailAuthStream(zone), emailAuthDecider);
    // Settings of an earlier owner of the name are not this account's.
    return state.accountId === caller.accountId
      ? state
      : { ...emailAuthDecider.initialState(), zone, accountId: caller.accountId };
  }

  /**
   * The settings with the SPF record the zone serves at its apex now (an imported zone's own
   * record, or one edited among the zone's records): the form starts from what is published.
   */
  async view(zone: string, state: EmailAuthState) {
    const served = await this.spfRecords.at(zone);
    return settingsView(zone, state, served === null ? null : publishedSpf(served, zone));
  }

  async recommendation(caller: EmailAuthCaller, rawZone: string) {
    const state = await this.state(caller, rawZone);
    if (!state.progression) throw notFound(PROGRESSION_NOT_FOUND);
    return recommend(state.progression);
  }
}

/** The settings and the records they publish (GET /email-auth/domains/{zone}). */
export function settingsView(zone: string, s: EmailAuthState, published: PublishedSpf | null = null) {
  return {
    zone,
    dmarc: s.dmarc,
    spf: s.spf && { a: [], mx: [], exists: [], redirect: null, ...s.spf, dns_lookups: s.spfLookups },
    published_spf: published,
    dkim: s.dkim.map((k) => ({
      selector: k.selector,
      key_type: k.key_type,
      key_bits: k.key_bits,
      public_key: k.public_key,
      generated: k.generated,
      created_at: k.created_at,
    })),
    mta_sts: s.mtaSts && {
      mode: s.mtaSts.mode,
      mx: s.mtaSts.mx,
      max_age: s.mtaSts.max_age,
      id: s.mtaSts.id,
      policy_url: `https://mta-sts.${zone}/.well-known/mta-sts.txt`,
    },
    tls_rpt: s.tlsRpt,
    bimi: s.bimi,
    records: generatedRecords(s).map((r) => ({
      name: r.subname ? `${r.subname}.${zone}` : zone,
      type: 'TXT',
      value: r.value,
    })),
    warnings: advisories(zone, s),
  };
}

/** The seed's progression object; `auto_advance` stays internal. */
export function progressionView(zone: string, s: EmailAuthState) {
  const p = s.progression!;
  return {
    zone,
    current_stage: p.current_stage,
    policy: p.policy,
    percentage: p.percentage,
    days_at_current_stage: p.days_at_current_stage,
    recommended_min_days: stageConfig(p.current_stage).minDays,
    messages_at_stage: p.messages_at_stage,
    pass_rate_at_stage: p.pass_rate_at_stage,
    entered_at: p.entered_at,
    stage_history: p.stage_history,
  };
}
