import { Inject, Injectable } from '@nestjs/common';
import { CommandBus, CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { generateKeyPairSync } from 'node:crypto';
import { nameBasedEventId } from '../../eventstore/event-id';
import { EVENT_STORE, EventMetadata, EventStore, WrongExpectedVersionError } from '../../eventstore/event-store.port';
import { EventStreams } from '../../eventstore/event-streams';
import { CommandRunner } from '../../eventstore/command-runner';
import { CLOCK, Clock } from '../../shared/clock';
import { PublishManagedTxt } from '../../zones/application/zone.commands';
import { ManagedTxt } from '../../zones/domain/zone.decider';
import { EmailAuthCommand, emailAuthDecider, EmailAuthState } from '../domain/email-auth.decider';
import { emailAuthStream } from '../domain/email-auth.events';
import {
  BIMI_FAMILY,
  DKIM_FAMILY,
  DMARC_FAMILY,
  generatedRecords,
  MTA_STS_FAMILY,
  SPF_FAMILY,
  TLS_RPT_FAMILY,
  txtPresentation,
} from '../domain/records';
import { checkSpf } from '../domain/settings';
import { countSpfLookups, parseSpf, spfRecord } from '../domain/spf';
import {
  ChangeEmailAuth,
  ConfigureSpf,
  EmailAuthCaller,
  EmailAuthChange,
  GenerateDkimKey,
  NightZone,
  RecordDmarcNight,
  RemoveDkimKey,
  RepublishEmailAuth,
} from './email-auth.commands';
import { DMARC_AGGREGATE_STATS, DmarcAggregateStats } from './aggregate-stats.port';
import { Enrolment } from './enrolment';
import { ServedSpfRecords } from './served-spf-records';

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

const metadataOf = (c: EmailAuthCaller): EventMetadata => ({
  actor: c.actor,
  account_id: c.accountId,
  source_ip: c.sourceIp,
});

/**
 * What the email-authentication handlers share: enrolment check, the decision on the zone's
 * `emailauth-<zone>` stream through `CommandRunner` (read-your-writes on `email_auth`), then
 * the zone's TXT records regenerated as zone record events (served by the DNS server from
 * the event stream). The zone write is derived from the settings stream and idempotent
 * (only differences become events), so a retry of any change repairs records a crash left
 * unpublished.
 */
@Injectable()
export class EmailAuthSettingsWriter {
  constructor(
    private readonly runner: CommandRunner,
    private readonly commands: CommandBus,
    private readonly enrolment: Enrolment,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** The publish in flight per zone (see `publish`). */
  private readonly publishing = new Map<string, Promise<void>>();

  async change(
    caller: EmailAuthCaller,
    rawZone: string,
    change: EmailAuthChange,
    extraRemovals: ManagedTxt[] = [],
  ): Promise<EmailAuthState> {
    const zone = await this.enrolment.check(caller.accountId, rawZone);
    const command = {
      ...change,
      accountId: caller.accountId,
      zone,
      at: this.clock.now().toISOString(),
    } as EmailAuthCommand;
    if (command.type !== 'OpenWizard') await this.checkPublishable(caller, zone, command, extraRemovals);
    const { state } = await this.runner.run(emailAuthStream(zone), emailAuthDecider, command, metadataOf(caller), [
      'email_auth',
    ]);
    // Opening the wizard changes no record; every other change (even a repeated one) republishes, which heals a cut-off publish.
    if (command.type !== 'OpenWizard') await this.publish(caller, zone, extraRemovals);
    return state;
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
  private async checkPublishable(
    caller: EmailAuthCaller,
    zone: string,
    command: EmailAuthCommand,
    extra: ManagedTxt[],
  ): Promise<void> {
    const { state } = await this.runner.streams.loadState(emailAuthStream(zone), emailAuthDecider);
    const next = emailAuthDecider.decide(command, state).reduce((s, e) => emailAuthDecider.evolve(s, e), state);
    if (next.accountId !== caller.accountId) return;
    await this.commands.execute(
      new PublishManagedTxt(caller, zone, this.publishChanges(next, extra), RECORD_TTL, true),
    );
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
      records: generated
        .filter((g) => g.subname === f.subname && g.family === f.family)
        .map((g) => txtPresentation(g.value)),
    }));
    for (const k of generated.filter((g) => g.family === DKIM_FAMILY))
      changes.push({ subname: k.subname, family: k.family, records: [txtPresentation(k.value)] });
    return changes;
  }
}

@CommandHandler(ChangeEmailAuth)
export class ChangeEmailAuthHandler implements ICommandHandler<ChangeEmailAuth, EmailAuthState> {
  constructor(private readonly writer: EmailAuthSettingsWriter) {}

  execute({ caller, zone, change, extraRemovals }: ChangeEmailAuth): Promise<EmailAuthState> {
    return this.writer.change(caller, zone, change, extraRemovals);
  }
}

/** SPF: the lookup count is read from the records the service serves before the decision. */
@CommandHandler(ConfigureSpf)
export class ConfigureSpfHandler implements ICommandHandler<ConfigureSpf, EmailAuthState> {
  constructor(
    private readonly writer: EmailAuthSettingsWriter,
    private readonly enrolment: Enrolment,
    private readonly spfRecords: ServedSpfRecords,
  ) {}

  async execute({ caller, zone: rawZone, spf: input }: ConfigureSpf): Promise<EmailAuthState> {
    const zone = await this.enrolment.check(caller.accountId, rawZone);
    const spf = checkSpf(input);
    const dnsLookups = await countSpfLookups(parseSpf(spfRecord(spf)), (domain) => this.spfRecords.at(domain));
    return this.writer.change(caller, zone, { type: 'ConfigureSpf', spf: input, dnsLookups });
  }
}

/** RSA 2048 generated here; the private key is handed back once and never stored. */
@CommandHandler(GenerateDkimKey)
export class GenerateDkimKeyHandler implements ICommandHandler<
  GenerateDkimKey,
  { state: EmailAuthState; privateKey: string }
> {
  constructor(
    private readonly writer: EmailAuthSettingsWriter,
    private readonly enrolment: Enrolment,
  ) {}

  async execute({
    caller,
    zone: rawZone,
    selector,
  }: GenerateDkimKey): Promise<{ state: EmailAuthState; privateKey: string }> {
    await this.enrolment.check(caller.accountId, rawZone);
    const { publicKey, privateKey } = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      publicKeyEncoding: { type: 'spki', format: 'der' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
    const state = await this.writer.change(caller, rawZone, {
      type: 'SetDkimKey',
      selector,
      publicKey: publicKey.toString('base64'),
      generated: true,
    });
    return { state, privateKey };
  }
}

@CommandHandler(RemoveDkimKey)
export class RemoveDkimKeyHandler implements ICommandHandler<RemoveDkimKey, EmailAuthState> {
  constructor(private readonly writer: EmailAuthSettingsWriter) {}

  execute({ caller, zone, selector }: RemoveDkimKey): Promise<EmailAuthState> {
    const s = selector.toLowerCase();
    return this.writer.change(caller, zone, { type: 'RemoveDkimKey', selector: s }, [
      { subname: `${s}._domainkey`, family: DKIM_FAMILY, records: [] },
    ]);
  }
}

@CommandHandler(RepublishEmailAuth)
export class RepublishEmailAuthHandler implements ICommandHandler<RepublishEmailAuth, boolean> {
  constructor(private readonly writer: EmailAuthSettingsWriter) {}

  execute({ zone }: RepublishEmailAuth): Promise<boolean> {
    return this.writer.republish(zone);
  }
}

const DAY_MS = 86_400_000;
export const WINDOW_DAYS = 7;

/**
 * A night is recorded once per zone: the decider ignores a night it has seen, and the event
 * id is derived from zone and night, so a rerun, a retry or a second worker changes nothing.
 * It appends itself rather than through `CommandRunner.runOnce`: the command depends on the
 * state it is decided on (the stage's start bounds the window of totals it reads), and the
 * event's id and metadata (correlation id = event id) are what earlier nights were recorded
 * with. The job waits for the read models once, after every zone's night (dmarc-nightly.job.ts).
 */
@CommandHandler(RecordDmarcNight)
export class RecordDmarcNightHandler implements ICommandHandler<RecordDmarcNight, NightZone> {
  constructor(
    private readonly streams: EventStreams,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(DMARC_AGGREGATE_STATS) private readonly stats: DmarcAggregateStats,
  ) {}

  async execute({ zone, night, now }: RecordDmarcNight): Promise<NightZone> {
    const stats = this.stats;
    const stream = emailAuthStream(zone);
    for (let attempt = 0; ; attempt++) {
      const { state, revision } = await this.streams.loadState(stream, emailAuthDecider);
      const p = state.progression;
      // Counters are per stage: mail from before the stage began does not count for it.
      const from = new Date(Math.max(now.getTime() - WINDOW_DAYS * DAY_MS, p ? Date.parse(p.entered_at) : 0));
      const totals = p ? await stats.totals(zone, from, now) : { messages: 0, passing: 0 };
      const events = emailAuthDecider.decide(
        {
          type: 'RecordNightlyMetrics',
          accountId: state.accountId,
          zone,
          at: now.toISOString(),
          night,
          windowFrom: from.toISOString(),
          windowTo: now.toISOString(),
          messages: totals.messages,
          passing: totals.passing,
        },
        state,
      );
      const summary = {
        zone,
        messages: totals.messages,
        passing: totals.passing,
        window_from: from.toISOString(),
        window_to: now.toISOString(),
      };
      if (events.length === 0) return { ...summary, recorded: false };
      try {
        const id = nameBasedEventId(`dmarc-nightly:${zone}:${night}`);
        await this.store.appendToStream(
          stream,
          events.map((e) => ({
            id,
            type: e.type,
            data: e.data,
            metadata: { version: 1, actor: 'system', account_id: state.accountId, correlation_id: id },
          })),
          revision === -1 ? 'no_stream' : revision,
        );
        return { ...summary, recorded: true };
      } catch (e) {
        if (!(e instanceof WrongExpectedVersionError) || attempt >= 5) throw e;
      }
    }
  }
}

export const EMAIL_AUTH_COMMAND_HANDLERS = [
  ChangeEmailAuthHandler,
  ConfigureSpfHandler,
  GenerateDkimKeyHandler,
  RemoveDkimKeyHandler,
  RepublishEmailAuthHandler,
  RecordDmarcNightHandler,
];
