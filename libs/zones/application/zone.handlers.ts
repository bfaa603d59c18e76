import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { randomBytes, randomUUID } from 'node:crypto';
import { EventMetadata } from '../../eventstore/event-store.port';
import { ReservationKind, Reservations } from '../../eventstore/reservations';
import { CommandRunner } from '../../eventstore/command-runner';
import { hostnameProblem } from '../../dns-server';
import { CLOCK, Clock } from '../../shared/clock';
import { APP_CONFIG, AppConfig } from '../../shared/config';
import { badRequest, conflict, notFound, validationFailed } from '../../shared/errors';
import { parseMasterFile } from '../domain/master-file';
import { ZONE_NOT_FOUND, zoneDecider, ZoneCommand } from '../domain/zone.decider';
import { DnsUpdateRefused, UPDATE_RCODE } from '../domain/dns-update';
import { verificationRecordName, zoneNameStream, zoneStream } from '../domain/zone.events';
import { ZoneQuota } from './zone-quota';
import { ZoneHosts } from './zone-hosts';
import { ZoneVerifier } from './zone-verifier';
import { ZoneOwnership } from './zone-ownership';
import { conflictMessage } from '../domain/zone-ownership';
import { ownZonesAnswer } from './own-answer';
import { ProjectionEngine } from '../../projection-engine/projection-engine';
import { ZONES } from '../../../projections/zones.projection';
import {
  ApplyDnsUpdate,
  DeleteZone,
  ImportZone,
  PublishManagedTxt,
  UpsertZoneRecords,
  VerifyZone,
  ZoneCaller,
} from './zone.commands';

const metadataOf = (c: ZoneCaller): EventMetadata => ({
  actor: c.actor,
  account_id: c.accountId,
  source_ip: c.sourceIp,
});
const reservationMetadata = (c: ZoneCaller): EventMetadata => ({ actor: c.actor, source_ip: c.sourceIp });
export const normalizeZoneName = (name: string) => name.trim().toLowerCase().replace(/\.$/, '');

/** Zone names are unique across accounts; a claim names the zone whose stream proves it. */
const ZONE_NAME: ReservationKind<{ zone_id: string; account_id: number }> = {
  reserved: 'ZoneNameReserved',
  released: 'ZoneNameReleased',
  ownerStream: (d) => zoneStream(d.zone_id),
};

/** Zone commands share the lookup name → zone id (the reservation stream, write-side truth). */
abstract class ZoneCommandBase {
  constructor(
    protected readonly runner: CommandRunner,
    protected readonly reservations: Reservations,
    protected readonly clock: Clock,
  ) {}

  protected async zoneIdOf(name: string, accountId: number): Promise<string> {
    const claim = await this.reservations.holder(ZONE_NAME, zoneNameStream(normalizeZoneName(name)));
    if (!claim || claim.account_id !== accountId) throw notFound(ZONE_NOT_FOUND);
    return claim.zone_id;
  }

  protected run(caller: ZoneCaller, zoneId: string, command: (at: string) => ZoneCommand) {
    return this.runner.run(
      zoneStream(zoneId),
      zoneDecider,
      command(this.clock.now().toISOString()),
      metadataOf(caller),
      ['zones'],
    );
  }
}

@CommandHandler(ImportZone)
export class ImportZoneHandler extends ZoneCommandBase implements ICommandHandler<ImportZone, string> {
  constructor(
    runner: CommandRunner,
    reservations: Reservations,
    @Inject(CLOCK) clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly quota: ZoneQuota,
    private readonly ownership: ZoneOwnership,
  ) {
    super(runner, reservations, clock);
  }

  execute(cmd: ImportZone): Promise<string> {
    return this.quota.admitZone(cmd.caller.accountId, () => this.importZone(cmd));
  }

  private async importZone(cmd: ImportZone): Promise<string> {
    const recordLimit = await this.quota.recordLimit(cmd.caller.accountId);
    const name = normalizeZoneName(cmd.name);
    const problem = hostnameProblem(name);
    if (problem || !name.includes('.'))
      throw validationFailed(`name: ${problem ?? 'a zone name needs at least two labels'}`);
    const allowances = await this.ownership.allowances();
    // The service's own names first (a DDNS zone, a name-server host): contract §4, 409 zone_conflict.
    this.ownership.checkServiceNames(name, cmd.caller.accountId, allowances);
    const rrsets = cmd.zoneFile ? parseMasterFile(cmd.zoneFile, { zone: name, defaultTtl: 3600 }) : [];
    const zoneId = randomUUID();
    const token = randomBytes(18).toString('base64url');
    const command = (at: string): ZoneCommand => ({
      type: 'ImportZone',
      zoneId,
      accountId: cmd.caller.accountId,
      name,
      token,
      nameservers: this.config.nameservers,
      rrsets,
      recordLimit,
      at,
    });
    // Validate before claiming the name, so a bad zone file does not hold it.
    zoneDecider.decide(command(this.clock.now().toISOString()), zoneDecider.initialState());
    const claim = { zone_id: zoneId, account_id: cmd.caller.accountId };
    if (!(await this.reservations.claim(ZONE_NAME, zoneNameStream(name), claim, reservationMetadata(cmd.caller)))) {
      const holder = await this.reservations.holder(ZONE_NAME, zoneNameStream(name));
      if (holder && holder.account_id !== cmd.caller.accountId) {
        const message = conflictMessage({
          zone: name,
          account_id: cmd.caller.accountId,
          relation: 'equal',
          with: { kind: 'zone', name, account_id: holder.account_id },
        });
        throw conflict('zone_conflict', message);
      }
      throw conflict('zone_taken', `${name} is already imported`);
    }
    try {
      const holderOf = (n: string) => this.reservations.holder(ZONE_NAME, zoneNameStream(n));
      await this.ownership.claim(
        name,
        zoneId,
        cmd.caller.accountId,
        allowances,
        holderOf,
        reservationMetadata(cmd.caller),
      );
    } catch (e) {
      await this.reservations.release(
        ZONE_NAME,
        zoneNameStream(name),
        { zone_id: zoneId },
        reservationMetadata(cmd.caller),
      );
      throw e;
    }
    await this.run(cmd.caller, zoneId, command);
    return name;
  }
}

@CommandHandler(UpsertZoneRecords)
export class UpsertZoneRecordsHandler extends ZoneCommandBase implements ICommandHandler<UpsertZoneRecords, void> {
  constructor(
    runner: CommandRunner,
    reservations: Reservations,
    @Inject(CLOCK) clock: Clock,
    private readonly quota: ZoneQuota,
  ) {
    super(runner, reservations, clock);
  }

  async execute(cmd: UpsertZoneRecords): Promise<void> {
    const id = await this.zoneIdOf(cmd.name, cmd.caller.accountId);
    const recordLimit = await this.quota.recordLimit(cmd.caller.accountId);
    await this.run(cmd.caller, id, (at) => ({
      type: 'UpsertRRsets',
      accountId: cmd.caller.accountId,
      rrsets: cmd.rrsets,
      recordLimit,
      at,
    }));
  }
}

@CommandHandler(VerifyZone)
export class VerifyZoneHandler extends ZoneCommandBase implements ICommandHandler<VerifyZone, void> {
  constructor(
    runner: CommandRunner,
    reservations: Reservations,
    @Inject(CLOCK) clock: Clock,
    private readonly verifier: ZoneVerifier,
    private readonly projections: ProjectionEngine,
  ) {
    super(runner, reservations, clock);
  }

  async execute(cmd: VerifyZone): Promise<void> {
    const name = normalizeZoneName(cmd.name);
    const id = await this.zoneIdOf(name, cmd.caller.accountId);
    const { state, events } = await this.runner.streams.load(zoneStream(id), zoneDecider);
    if (state.status === 'verified') return;
    const token = events[0]?.data.verification_token as string;
    const recordName = verificationRecordName(name);
    const servedHere = await this.servedFromOwnRecords(recordName, token, cmd.caller.accountId);
    const outcome = await this.verifier.verify(name, recordName, token, servedHere);
    if (!outcome.ok) throw badRequest('not_verified', `The zone is not verified: ${outcome.reason}`);
    await this.run(cmd.caller, id, (at) => ({
      type: 'MarkVerified',
      accountId: cmd.caller.accountId,
      method: outcome.method,
      at,
    }));
  }

  /**
   * Whether this service would answer `recordName` TXT with the token from the claimant's own
   * records (any of the account's zones: directly, by wildcard or through CNAMEs among them).
   */
  private async servedFromOwnRecords(recordName: string, token: string, accountId: number): Promise<boolean> {
    const zones = await this.projections.readModel(ZONES).find({ account_id: accountId });
    return ownZonesAnswer(zones, recordName, token);
  }
}

@CommandHandler(DeleteZone)
export class DeleteZoneHandler extends ZoneCommandBase implements ICommandHandler<DeleteZone, void> {
  constructor(
    runner: CommandRunner,
    reservations: Reservations,
    @Inject(CLOCK) clock: Clock,
    private readonly ownership: ZoneOwnership,
  ) {
    super(runner, reservations, clock);
  }

  async execute(cmd: DeleteZone): Promise<void> {
    const name = normalizeZoneName(cmd.name);
    const id = await this.zoneIdOf(name, cmd.caller.accountId);
    await this.run(cmd.caller, id, (at) => ({ type: 'DeleteZone', accountId: cmd.caller.accountId, at }));
    // Claims of a deleted zone no longer count anyway (a dead zone's claim is settled); releasing keeps the streams short.
    await this.ownership.releaseAll(name, id, reservationMetadata(cmd.caller));
    await this.reservations.release(ZONE_NAME, zoneNameStream(name), { zone_id: id }, reservationMetadata(cmd.caller));
  }
}

@CommandHandler(PublishManagedTxt)
export class PublishManagedTxtHandler extends ZoneCommandBase implements ICommandHandler<PublishManagedTxt, void> {
  constructor(
    runner: CommandRunner,
    reservations: Reservations,
    @Inject(CLOCK) clock: Clock,
    private readonly quota: ZoneQuota,
  ) {
    super(runner, reservations, clock);
  }

  async execute(cmd: PublishManagedTxt): Promise<void> {
    const id = await this.zoneIdOf(cmd.name, cmd.caller.accountId);
    const recordLimit = await this.quota.recordLimit(cmd.caller.accountId);
    const command = (at: string): ZoneCommand => ({
      type: 'SetManagedTxt',
      accountId: cmd.caller.accountId,
      changes: cmd.changes,
      ttl: cmd.ttl,
      recordLimit,
      at,
    });
    if (cmd.dryRun) {
      const { state } = await this.runner.streams.loadState(zoneStream(id), zoneDecider);
      zoneDecider.decide(command(this.clock.now().toISOString()), state);
      return;
    }
    await this.run(cmd.caller, id, command);
  }
}

@CommandHandler(ApplyDnsUpdate)
export class ApplyDnsUpdateHandler extends ZoneCommandBase implements ICommandHandler<ApplyDnsUpdate, number> {
  constructor(
    runner: CommandRunner,
    reservations: Reservations,
    @Inject(CLOCK) clock: Clock,
    private readonly quota: ZoneQuota,
    private readonly hosts: ZoneHosts,
  ) {
    super(runner, reservations, clock);
  }

  async execute({ request }: ApplyDnsUpdate): Promise<number> {
    const claim = await this.reservations.holder(ZONE_NAME, zoneNameStream(normalizeZoneName(request.zone)));
    if (!claim) return UPDATE_RCODE.NOTAUTH;
    // One command, so the update is in the audit log, analytics, signing and transfers like any API change.
    const caller: ZoneCaller = {
      accountId: claim.account_id,
      actor: `tsig:${request.keyName}`,
      sourceIp: request.client,
    };
    try {
      const recordLimit = await this.quota.recordLimit(claim.account_id);
      const hosts = await this.hosts.addressRRsets(claim.account_id, normalizeZoneName(request.zone));
      await this.run(caller, claim.zone_id, (at) => ({
        type: 'ApplyDnsUpdate',
        update: request.update,
        allow: request.allow,
        hosts,
        recordLimit,
        at,
      }));
      return UPDATE_RCODE.NOERROR;
    } catch (e) {
      if (e instanceof DnsUpdateRefused) return e.rcode;
      throw e;
    }
  }
}

export const ZONE_COMMAND_HANDLERS = [
  ImportZoneHandler,
  UpsertZoneRecordsHandler,
  VerifyZoneHandler,
  DeleteZoneHandler,
  PublishManagedTxtHandler,
  ApplyDnsUpdateHandler,
];
