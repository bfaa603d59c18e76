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
import { isAtOrUnder } from '../../shared/fqdn';
import { parseMasterFile } from '../domain/master-file';
import { RRsetInput } from '../domain/rrsets';
import { ManagedTxt, ZONE_NOT_FOUND, zoneDecider, ZoneCommand } from '../domain/zone.decider';
import { DnsUpdate, DnsUpdateRefused, UPDATE_RCODE, UpdatePermission } from '../domain/dns-update';
import { verificationRecordName, zoneNameStream, zoneStream } from '../domain/zone.events';
import { ZoneVerifier } from './zone-verifier';

export interface ZoneCaller {
  accountId: number;
  actor: string;
  sourceIp: string;
}

export class ImportZone {
  constructor(
    readonly caller: ZoneCaller,
    readonly name: string,
    readonly zoneFile: string | undefined,
  ) {}
}
export class UpsertZoneRecords {
  constructor(
    readonly caller: ZoneCaller,
    readonly name: string,
    readonly rrsets: RRsetInput[],
  ) {}
}
export class VerifyZone {
  constructor(
    readonly caller: ZoneCaller,
    readonly name: string,
  ) {}
}
export class DeleteZone {
  constructor(
    readonly caller: ZoneCaller,
    readonly name: string,
  ) {}
}

const metadataOf = (c: ZoneCaller): EventMetadata => ({ actor: c.actor, account_id: c.accountId, source_ip: c.sourceIp });
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
    return this.runner.run(zoneStream(zoneId), zoneDecider, command(this.clock.now().toISOString()), metadataOf(caller), ['zones']);
  }
}

@CommandHandler(ImportZone)
export class ImportZoneHandler extends ZoneCommandBase implements ICommandHandler<ImportZone, string> {
  constructor(
    runner: CommandRunner,
    reservations: Reservations,
    @Inject(CLOCK) clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super(runner, reservations, clock);
  }

  async execute(cmd: ImportZone): Promise<string> {
    const name = normalizeZoneName(cmd.name);
    const problem = hostnameProblem(name);
    if (problem || !name.includes('.')) throw validationFailed(`name: ${problem ?? 'a zone name needs at least two labels'}`);
    if (this.config.ddnsZones.some((z) => isAtOrUnder(name, z))) {
      throw validationFailed(`name: ${name} is part of the service's dynamic-DNS zones`);
    }
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
      at,
    });
    // Validate before claiming the name, so a bad zone file does not hold it.
    zoneDecider.decide(command(this.clock.now().toISOString()), zoneDecider.initialState());
    const claim = { zone_id: zoneId, account_id: cmd.caller.accountId };
    if (!(await this.reservations.claim(ZONE_NAME, zoneNameStream(name), claim, reservationMetadata(cmd.caller)))) {
      throw conflict('zone_taken', `${name} is already imported`);
    }
    await this.run(cmd.caller, zoneId, command);
    return name;
  }
}

@CommandHandler(UpsertZoneRecords)
export class UpsertZoneRecordsHandler extends ZoneCommandBase implements ICommandHandler<UpsertZoneRecords, void> {
  constructor(runner: CommandRunner, reservations: Reservations, @Inject(CLOCK) clock: Clock) {
    super(runner, reservations, clock);
  }

  async execute(cmd: UpsertZoneRecords): Promise<void> {
    const id = await this.zoneIdOf(cmd.name, cmd.caller.accountId);
    await this.run(cmd.caller, id, (at) => ({ type: 'UpsertRRsets', accountId: cmd.caller.accountId, rrsets: cmd.rrsets, at }));
  }
}

@CommandHandler(VerifyZone)
export class VerifyZoneHandler extends ZoneCommandBase implements ICommandHandler<VerifyZone, void> {
  constructor(
    runner: CommandRunner,
    reservations: Reservations,
    @Inject(CLOCK) clock: Clock,
    private readonly verifier: ZoneVerifier,
  ) {
    super(runner, reservations, clock);
  }

  async execute(cmd: VerifyZone): Promise<void> {
    const name = normalizeZoneName(cmd.name);
    const id = await this.zoneIdOf(name, cmd.caller.accountId);
    const { state, events } = await this.runner.streams.load(zoneStream(id), zoneDecider);
    if (state.status === 'verified') return;
    const token = events[0]?.data.verification_token as string;
    const outcome = await this.verifier.verify(name, verificationRecordName(name), token);
    if (!outcome.ok) throw badRequest('not_verified', `The zone is not verified: ${outcome.reason}`);
    await this.run(cmd.caller, id, (at) => ({ type: 'MarkVerified', accountId: cmd.caller.accountId, method: outcome.method, at }));
  }
}

@CommandHandler(DeleteZone)
export class DeleteZoneHandler extends ZoneCommandBase implements ICommandHandler<DeleteZone, void> {
  constructor(runner: CommandRunner, reservations: Reservations, @Inject(CLOCK) clock: Clock) {
    super(runner, reservations, clock);
  }

  async execute(cmd: DeleteZone): Promise<void> {
    const name = normalizeZoneName(cmd.name);
    const id = await this.zoneIdOf(name, cmd.caller.accountId);
    await this.run(cmd.caller, id, (at) => ({ type: 'DeleteZone', accountId: cmd.caller.accountId, at }));
    await this.reservations.release(ZONE_NAME, zoneNameStream(name), { zone_id: id }, reservationMetadata(cmd.caller));
  }
}

/**
 * Publishes TXT data another context manages (email authentication) as zone record
 * events, so the DNS server serves it like any other record.
 */
export class PublishManagedTxt {
  constructor(
    readonly caller: ZoneCaller,
    readonly name: string,
    readonly changes: ManagedTxt[],
    readonly ttl = 3600,
  ) {}
}

@CommandHandler(PublishManagedTxt)
export class PublishManagedTxtHandler extends ZoneCommandBase implements ICommandHandler<PublishManagedTxt, void> {
  constructor(runner: CommandRunner, reservations: Reservations, @Inject(CLOCK) clock: Clock) {
    super(runner, reservations, clock);
  }

  async execute(cmd: PublishManagedTxt): Promise<void> {
    const id = await this.zoneIdOf(cmd.name, cmd.caller.accountId);
    await this.run(cmd.caller, id, (at) => ({ type: 'SetManagedTxt', accountId: cmd.caller.accountId, changes: cmd.changes, ttl: cmd.ttl, at }));
  }
}

/** An RFC 2136 UPDATE the DNS role read and authorised (TSIG key covering the zone); answers the RCODE. */
export class ApplyDnsUpdate {
  constructor(readonly request: { zone: string; update: DnsUpdate; allow: UpdatePermission[]; keyName: string; client: string }) {}
}

@CommandHandler(ApplyDnsUpdate)
export class ApplyDnsUpdateHandler extends ZoneCommandBase implements ICommandHandler<ApplyDnsUpdate, number> {
  constructor(runner: CommandRunner, reservations: Reservations, @Inject(CLOCK) clock: Clock) {
    super(runner, reservations, clock);
  }

  async execute({ request }: ApplyDnsUpdate): Promise<number> {
    const claim = await this.reservations.holder(ZONE_NAME, zoneNameStream(normalizeZoneName(request.zone)));
    if (!claim) return UPDATE_RCODE.NOTAUTH;
    // One command, so the update is in the audit log, analytics, signing and transfers like any API change.
    const caller: ZoneCaller = { accountId: claim.account_id, actor: `tsig:${request.keyName}`, sourceIp: request.client };
    try {
      await this.run(caller, claim.zone_id, (at) => ({ type: 'ApplyDnsUpdate', update: request.update, allow: request.allow, at }));
      return UPDATE_RCODE.NOERROR;
    } catch (e) {
      if (e instanceof DnsUpdateRefused) return e.rcode;
      throw e;
    }
  }
}

export const ZONE_COMMAND_HANDLERS = [ImportZoneHandler, UpsertZoneRecordsHandler, VerifyZoneHandler, DeleteZoneHandler, PublishManagedTxtHandler, ApplyDnsUpdateHandler];
