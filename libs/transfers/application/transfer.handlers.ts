import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { randomBytes, randomUUID } from 'node:crypto';
import { isIP } from 'node:net';
import { AccountDirectory } from '../../accounts/application/account-directory';
import { hostnameProblem, isSupportedType } from '../../dns-server';
import { TSIG_ALGORITHMS, TsigAlgorithm } from '../../dns-transfer/tsig';
import { CommandRunner } from '../../eventstore/command-runner';
import { EventMetadata } from '../../eventstore/event-store.port';
import { ReservationKind, Reservations } from '../../eventstore/reservations';
import { CLOCK, Clock } from '../../shared/clock';
import { SECRET_BOX, SecretBox } from '../../shared/crypto';
import { conflict, notFound, validationFailed } from '../../shared/errors';
import { ZoneQueries } from '../../zones/application/zone.queries';
import { secondariesDecider } from '../domain/secondaries.decider';
import {
  KeyZone,
  secondariesStream,
  TSIG_SECRET_PURPOSE,
  TsigKeyCreated,
  tsigKeyNameStream,
  tsigKeyringStream,
  TsigKeyPurpose,
  UpdateAllow,
} from '../domain/transfer.events';
import { tsigKeyringDecider, TsigKeyringCommand } from '../domain/tsig-keyring.decider';
import { AddSecondary, CreateTsigKey, DeleteTsigKey, RemoveSecondary, TransferCaller } from './transfer.commands';

const metadataOf = (c: TransferCaller): EventMetadata => ({
  actor: c.actor,
  account_id: c.accountId,
  source_ip: c.sourceIp,
});
/** Secret sizes: the hash's output size (RFC 8945 §6: at least that much key material). */
const SECRET_BYTES: Record<TsigAlgorithm, number> = { 'hmac-sha256': 32, 'hmac-sha512': 64 };

const KEY_NAME: ReservationKind<{ key_id: string; account_id: number }> = {
  reserved: 'TsigKeyNameReserved',
  released: 'TsigKeyNameReleased',
  ownerStream: (d) => tsigKeyringStream(d.account_id),
};

export const canonicalKeyName = (name: string) => name.trim().toLowerCase().replace(/\.$/, '');

export interface CreatedTsigKey {
  event: TsigKeyCreated['data'];
  secret: string;
}

/** `*.x` covers names below x (contract §18); otherwise a name relative to the zone ("" or "@" for the apex). */
function canonicalAllow(allow: Array<{ name: string; types?: string[] }>): UpdateAllow[] {
  return allow.map((a, i) => {
    const name = a.name.trim().toLowerCase().replace(/\.$/, '');
    const bare = name === '@' ? '' : name;
    const problem = bare === '' || bare === '*' ? null : hostnameProblem(bare, { wildcard: true });
    if (problem) throw validationFailed(`allow[${i}].name: ${problem}`);
    const types = [...new Set((a.types ?? []).map((t) => t.toUpperCase()))];
    const unknown = types.find((t) => !isSupportedType(t));
    if (unknown) throw validationFailed(`allow[${i}].types: ${unknown} is not a record type the service serves`);
    return { name: bare, types };
  });
}

/** `IP` or `IP:port` (`[v6]:port`) → address and port (53 by default). */
export function parseSecondaryAddress(text: string): { address: string; port: number } {
  const t = text.trim();
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(t);
  const hostPort = /^([^:]+):(\d+)$/.exec(t);
  const [address, port]: [string, string | undefined] = bracketed
    ? [bracketed[1], bracketed[2]]
    : isIP(t)
      ? [t, undefined]
      : hostPort
        ? [hostPort[1], hostPort[2]]
        : [t, undefined];
  if (isIP(address) === 0) throw validationFailed('address: must be an IP address, optionally with :port');
  const n = port === undefined ? 53 : Number(port);
  if (!Number.isInteger(n) || n < 1 || n > 65535) throw validationFailed('address: the port must be 1-65535');
  return { address: address.toLowerCase(), port: n };
}

@CommandHandler(CreateTsigKey)
export class CreateTsigKeyHandler implements ICommandHandler<CreateTsigKey, CreatedTsigKey> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly reservations: Reservations,
    private readonly directory: AccountDirectory,
    private readonly zones: ZoneQueries,
    @Inject(SECRET_BOX) private readonly box: SecretBox,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute(cmd: CreateTsigKey): Promise<CreatedTsigKey> {
    const name = canonicalKeyName(cmd.name);
    const problem = hostnameProblem(name);
    if (problem) throw validationFailed(`name: ${problem}`);
    if (!TSIG_ALGORITHMS.includes(cmd.algorithm as TsigAlgorithm))
      throw validationFailed(`algorithm: must be one of ${TSIG_ALGORITHMS.join(', ')}`);
    if (cmd.purpose !== 'transfer' && cmd.purpose !== 'update')
      throw validationFailed('purpose: must be transfer or update');
    if (cmd.purpose === 'transfer' && cmd.allow.length > 0)
      throw validationFailed('allow: only update keys are limited to names and types');
    const algorithm = cmd.algorithm as TsigAlgorithm;
    const { state: account } = await this.directory.load(cmd.caller.accountId);
    if (!account.exists) throw notFound('Account not found');
    const zones: KeyZone[] = [];
    for (const [i, zone] of [...new Set(cmd.zones.map((z) => z.trim().toLowerCase().replace(/\.$/, '')))].entries()) {
      const doc = await this.zones.get(cmd.caller.accountId, zone).catch(() => null);
      if (!doc) throw validationFailed(`zones[${i}]: ${zone} is not a zone of your account`);
      zones.push({ zone_id: doc.id, name: doc.name });
    }
    const allow = canonicalAllow(cmd.allow);
    const secret = randomBytes(SECRET_BYTES[algorithm]);
    const keyId = randomUUID();
    const command = (at: string): TsigKeyringCommand => ({
      type: 'CreateTsigKey',
      accountId: cmd.caller.accountId,
      plan: account.plan,
      keyId,
      name,
      algorithm,
      purpose: cmd.purpose as TsigKeyPurpose,
      zones,
      allow,
      secretSealed: this.box.seal(secret, TSIG_SECRET_PURPOSE),
      at,
    });
    // Plan and limit first (on the current keyring), so a refused key does not hold its name.
    const stream = tsigKeyringStream(cmd.caller.accountId);
    const { state } = await this.runner.streams.loadState(stream, tsigKeyringDecider);
    tsigKeyringDecider.decide(command(this.clock.now().toISOString()), state);
    const claim = { key_id: keyId, account_id: cmd.caller.accountId };
    const meta = metadataOf(cmd.caller);
    if (!(await this.reservations.claim(KEY_NAME, tsigKeyNameStream(name), claim, meta)))
      throw conflict('key_name_taken', `A TSIG key named ${name} exists`);
    try {
      const result = await this.runner.streams.handle(
        stream,
        tsigKeyringDecider,
        command(this.clock.now().toISOString()),
        meta,
      );
      return { event: (result.events[0] as TsigKeyCreated).data, secret: secret.toString('base64') };
    } catch (e) {
      await this.reservations.release(KEY_NAME, tsigKeyNameStream(name), { key_id: keyId }, meta);
      throw e;
    }
  }
}

@CommandHandler(DeleteTsigKey)
export class DeleteTsigKeyHandler implements ICommandHandler<DeleteTsigKey, void> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly reservations: Reservations,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute(cmd: DeleteTsigKey): Promise<void> {
    const meta = metadataOf(cmd.caller);
    const result = await this.runner.streams.handle(
      tsigKeyringStream(cmd.caller.accountId),
      tsigKeyringDecider,
      { type: 'DeleteTsigKey', accountId: cmd.caller.accountId, keyId: cmd.keyId, at: this.clock.now().toISOString() },
      meta,
    );
    const name = (result.events[0]?.data as { name: string } | undefined)?.name;
    if (name) await this.reservations.release(KEY_NAME, tsigKeyNameStream(name), { key_id: cmd.keyId }, meta);
  }
}

@CommandHandler(AddSecondary)
export class AddSecondaryHandler implements ICommandHandler<AddSecondary, string> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly directory: AccountDirectory,
    private readonly zones: ZoneQueries,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute(cmd: AddSecondary): Promise<string> {
    const zone = await this.zones.get(cmd.caller.accountId, cmd.zone);
    const { address, port } = parseSecondaryAddress(cmd.address);
    const { state: account } = await this.directory.load(cmd.caller.accountId);
    const { state: keyring } = await this.runner.streams.loadState(
      tsigKeyringStream(cmd.caller.accountId),
      tsigKeyringDecider,
    );
    const key = [...keyring.keys.values()].find((k) => k.name === canonicalKeyName(cmd.tsigKey));
    const secondaryId = randomUUID();
    await this.runner.streams.handle(
      secondariesStream(zone.id),
      secondariesDecider,
      {
        type: 'AddSecondary',
        plan: account.plan,
        accountId: cmd.caller.accountId,
        zoneId: zone.id,
        zoneName: zone.name,
        secondaryId,
        address,
        port,
        key: key ? { name: key.name, purpose: key.purpose } : null,
        at: this.clock.now().toISOString(),
      },
      metadataOf(cmd.caller),
    );
    return secondaryId;
  }
}

@CommandHandler(RemoveSecondary)
export class RemoveSecondaryHandler implements ICommandHandler<RemoveSecondary, void> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly zones: ZoneQueries,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute(cmd: RemoveSecondary): Promise<void> {
    const zone = await this.zones.get(cmd.caller.accountId, cmd.zone);
    await this.runner.streams.handle(
      secondariesStream(zone.id),
      secondariesDecider,
      {
        type: 'RemoveSecondary',
        accountId: cmd.caller.accountId,
        zoneId: zone.id,
        zoneName: zone.name,
        secondaryId: cmd.secondaryId,
        at: this.clock.now().toISOString(),
      },
      metadataOf(cmd.caller),
    );
  }
}

export const TRANSFER_COMMAND_HANDLERS = [
  CreateTsigKeyHandler,
  DeleteTsigKeyHandler,
  AddSecondaryHandler,
  RemoveSecondaryHandler,
];
