import { Inject, Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { generateKeyPairSync } from 'node:crypto';
import { EventMetadata } from '../../eventstore/event-store.port';
import { CommandRunner } from '../../eventstore/command-runner';
import { CLOCK, Clock } from '../../shared/clock';
import { notFound } from '../../shared/errors';
import { PublishManagedTxt } from '../../zones/application/zone.handlers';
import { ManagedTxt } from '../../zones/domain/zone.decider';
import { EmailAuthCommand, emailAuthDecider, EmailAuthState, PROGRESSION_NOT_FOUND } from '../domain/email-auth.decider';
import { emailAuthStream } from '../domain/email-auth.events';
import { BIMI_FAMILY, DKIM_FAMILY, DMARC_FAMILY, generatedRecords, MTA_STS_FAMILY, SPF_FAMILY, TLS_RPT_FAMILY, txtPresentation } from '../domain/records';
import { checkSpf, SpfInput } from '../domain/settings';
import { countSpfLookups, parseSpf, PublishedSpf, publishedSpf, spfRecord } from '../domain/spf';
import { recommend, stageConfig } from '../domain/stages';
import { advisories } from '../domain/advisories';
import { Enrolment } from './enrolment';
import { ServedSpfRecords } from './served-spf-records';

export interface EmailAuthCaller {
  accountId: number;
  actor: string;
  sourceIp: string;
}

type Change = EmailAuthCommand extends infer C ? (C extends EmailAuthCommand ? Omit<C, 'accountId' | 'zone' | 'at'> : never) : never;

/** TTL of generated records: an hour, like the zone apex; changes are served at once regardless. */
const RECORD_TTL = 3600;

/** Families the service owns at each name once configured. */
const FAMILY_AT: Array<{ subname: string; family: string; configured: (s: EmailAuthState) => boolean }> = [
  { subname: '_dmarc', family: DMARC_FAMILY, configured: (s) => s.dmarc !== null },
  { subname: '', family: SPF_FAMILY, configured: (s) => s.spf !== null },
  { subname: '_mta-sts', family: MTA_STS_FAMILY, configured: (s) => s.mtaSts !== null },
  { subname: '_smtp._tls', family: TLS_RPT_FAMILY, configured: (s) => s.tlsRpt !== null },
  { subname: 'default._bimi', family: BIMI_FAMILY, configured: (s) => s.bimi !== null },
];

/**
 * Email-authentication writes: enrolment check, the decision on the zone's
 * `emailauth-<zone>` stream, then the zone's TXT records regenerated as zone record
 * events (served by the DNS server from the event stream). The zone write is derived
 * from the settings stream and idempotent (only differences become events), so a retry
 * of any change repairs records a crash left unpublished.
 */
@Injectable()
export class EmailAuthService {
  constructor(
    private readonly runner: CommandRunner,
    private readonly commands: CommandBus,
    private readonly enrolment: Enrolment,
    private readonly spfRecords: ServedSpfRecords,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** The publish in flight per zone (see `publish`). */
  private readonly publishing = new Map<string, Promise<void>>();

  async change(caller: EmailAuthCaller, rawZone: string, change: Change, extraRemovals: ManagedTxt[] = []): Promise<EmailAuthState> {
    const zone = await this.enrolment.check(caller.accountId, rawZone);
    const command = { ...change, accountId: caller.accountId, zone, at: this.clock.now().toISOString() } as EmailAuthCommand;
    if (command.type !== 'OpenWizard') await this.checkPublishable(caller, zone, command, extraRemovals);
    const { state } = await this.runner.run(emailAuthStream(zone), emailAuthDecider, command, metadataOf(caller), ['email_auth']);
    // Opening the wizard changes no record; every other change (even a repeated one) republishes, which heals a cut-off publish.
    if (command.type !== 'OpenWizard') await this.publish(caller, zone, extraRemovals);
    return state;
  }

  /** SPF: the lookup count is read from the records the service serves before the decision. */
  async configureSpf(caller: EmailAuthCaller, rawZone: string, input: SpfInput): Promise<EmailAuthState> {
    const zone = await this.enrolment.check(caller.accountId, rawZone);
    const spf = checkSpf(input);
    const dnsLookups = await countSpfLookups(parseSpf(spfRecord(spf)), (domain) => this.spfRecords.at(domain));
    return this.change(caller, zone, { type: 'ConfigureSpf', spf: input, dnsLookups });
  }

  /** RSA 2048 generated here; the private key is handed back once and never stored. */
  async generateDkim(caller: EmailAuthCaller, rawZone: string, selector: string): Promise<{ state: EmailAuthState; privateKey: string }> {
    await this.enrolment.check(caller.accountId, rawZone);
    const { publicKey, privateKey } = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      publicKeyEncoding: { type: 'spki', format: 'der' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
    const state = await this.change(caller, rawZone, { type: 'SetDkimKey', selector, publicKey: publicKey.toString('base64'), generated: true });
    return { state, privateKey };
  }

  removeDkim(caller: EmailAuthCaller, rawZone: string, selector: string): Promise<EmailAuthState> {
    const s = selector.toLowerCase();
    return this.change(caller, rawZone, { type: 'RemoveDkimKey', selector: s }, [{ subname: `${s}._domainkey`, family: DKIM_FAMILY, records: [] }]);
  }

  async state(caller: EmailAuthCaller, rawZone: string): Promise<EmailAuthState & { zone: string }> {
    const zone = await this.enrolment.check(caller.accountId, rawZone);
    const { state } = await this.runner.streams.loadState(emailAuthStream(zone), emailAuthDecider);
    // Settings of an earlier owner of the name are not this account's.
    return state.accountId === caller.accountId ? state : { ...emailAuthDecider.initialState(), zone, accountId: caller.accountId };
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

  /**
   * Publishes a zone's records again from its settings stream (the nightly repair): heals
   * a publish a crash cut off, or a zone deleted and imported again by the same owner.
   * Only differences become zone events, so a zone in order costs no write.
   */
  async republish(zone: string): Promise<boolean> {
    const { state } = await this.runner.streams.loadState(emailAuthStream(zone), emailAuthDecider);
    if (state.accountId === 0) return false;
    await this.publish({ accountId: state.accountId, actor: 'system', sourceIp: '' }, zone, []);
    return true;
  }

  /**
   * The zone's answer to the records this change would publish, before the settings are
   * stored: a record set over the DNS message size or the plan's records-per-zone limit
   * (contract §16) refuses the change as a whole instead of storing settings whose
   * records cannot be served.
   */
  private async checkPublishable(caller: EmailAuthCaller, zone: string, command: EmailAuthCommand, extra: ManagedTxt[]): Promise<void> {
    const { state } = await this.runner.streams.loadState(emailAuthStream(zone), emailAuthDecider);
    const next = emailAuthDecider.decide(command, state).reduce((s, e) => emailAuthDecider.evolve(s, e), state);
    if (next.accountId !== caller.accountId) return;
    await this.commands.execute(new PublishManagedTxt(caller, zone, this.publishChanges(next, extra), RECORD_TTL, true));
  }

  /** The managed TXT changes for `state`; a removal of what the state holds again (a concurrent re-add) is dropped. */
  private publishChanges(state: EmailAuthState, extra: ManagedTxt[]): ManagedTxt[] {
    const changes = this.changesFor(state);
    const removals = extra.filter((x) => !changes.some((c) => c.subname === x.subname && c.family === x.family));
    return [...changes, ...removals];
  }

  /**
   * Publishes from the newest settings, one publish per zone at a time in this process: two
   * concurrent changes then cannot leave the older snapshot as the last one written. Across
   * API replicas the nightly repair converges what a race left behind.
   */
  private publish(caller: EmailAuthCaller, zone: string, extra: ManagedTxt[]): Promise<void> {
    const previous = this.publishing.get(zone) ?? Promise.resolve();
    const next = previous
      .catch(() => undefined)
      .then(async () => {
        const { state } = await this.runner.streams.loadState(emailAuthStream(zone), emailAuthDecider);
        if (state.accountId !== caller.accountId) return;
        await this.commands.execute(new PublishManagedTxt(caller, zone, this.publishChanges(state, extra), RECORD_TTL));
      });
    this.publishing.set(zone, next);
    void next
      .finally(() => {
        if (this.publishing.get(zone) === next) this.publishing.delete(zone);
      })
      .catch(() => undefined);
    return next;
  }

  private changesFor(state: EmailAuthState): ManagedTxt[] {
    const generated = generatedRecords(state);
    const changes: ManagedTxt[] = FAMILY_AT.filter((f) => f.configured(state)).map((f) => ({
      subname: f.subname,
      family: f.family,
      records: generated.filter((g) => g.subname === f.subname && g.family === f.family).map((g) => txtPresentation(g.value)),
    }));
    for (const k of generated.filter((g) => g.family === DKIM_FAMILY)) changes.push({ subname: k.subname, family: k.family, records: [txtPresentation(k.value)] });
    return changes;
  }
}

export const metadataOf = (c: EmailAuthCaller): EventMetadata => ({ actor: c.actor, account_id: c.accountId, source_ip: c.sourceIp });

/** The settings and the records they publish (GET /email-auth/domains/{zone}). */
export function settingsView(zone: string, s: EmailAuthState, published: PublishedSpf | null = null) {
  return {
    zone,
    dmarc: s.dmarc,
    spf: s.spf && { a: [], mx: [], exists: [], redirect: null, ...s.spf, dns_lookups: s.spfLookups },
    published_spf: published,
    dkim: s.dkim.map((k) => ({ selector: k.selector, key_type: k.key_type, key_bits: k.key_bits, public_key: k.public_key, generated: k.generated, created_at: k.created_at })),
    mta_sts: s.mtaSts && { mode: s.mtaSts.mode, mx: s.mtaSts.mx, max_age: s.mtaSts.max_age, id: s.mtaSts.id, policy_url: `https://mta-sts.${zone}/.well-known/mta-sts.txt` },
    tls_rpt: s.tlsRpt,
    bimi: s.bimi,
    records: generatedRecords(s).map((r) => ({ name: r.subname ? `${r.subname}.${zone}` : zone, type: 'TXT', value: r.value })),
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
