import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { actorOf, ClientIp, CurrentPrincipal, Principal } from '../../auth/principal';
import { validationFailed } from '../../shared/errors';
import {
  AddSecondary,
  CreateTsigKey,
  DeleteTsigKey,
  RemoveSecondary,
  TransferCaller,
} from '../application/transfer.commands';
import { CreatedTsigKey } from '../application/transfer.handlers';
import { TransferQueries } from '../application/transfer.queries';
import { AddSecondaryDto, CreateTsigKeyDto } from './transfer.dto';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const callerOf = (p: Principal, ip: string): TransferCaller => ({
  accountId: p.accountId,
  actor: actorOf(p),
  sourceIp: ip,
});
const requireId = (id: string, what: string) => {
  if (!UUID.test(id)) throw validationFailed(`id must be a ${what} id`);
  return id.toLowerCase();
};

/** TSIG keys (contract §18): the secret is in the creation answer only. */
@Controller('tsig-keys')
export class TsigKeysController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: TransferQueries,
  ) {}

  @Post()
  @HttpCode(201)
  async create(@CurrentPrincipal() p: Principal, @Body() body: CreateTsigKeyDto, @ClientIp() ip: string) {
    const created: CreatedTsigKey = await this.commands.execute(
      new CreateTsigKey(
        callerOf(p, ip),
        body.name,
        body.algorithm ?? 'hmac-sha256',
        body.purpose,
        body.zones,
        body.allow ?? [],
      ),
    );
    const e = created.event;
    return {
      id: e.key_id,
      name: e.name,
      algorithm: e.algorithm,
      purpose: e.purpose,
      zones: e.zones.map((z) => z.name),
      allow: e.allow,
      created_at: e.created_at,
      secret: created.secret,
    };
  }

  @Get()
  async list(@CurrentPrincipal() p: Principal) {
    return { tsig_keys: await this.queries.keys(p.accountId) };
  }

  @Delete(':id')
  @HttpCode(204)
  async remove(@CurrentPrincipal() p: Principal, @Param('id') id: string, @ClientIp() ip: string): Promise<void> {
    await this.commands.execute(new DeleteTsigKey(callerOf(p, ip), requireId(id, 'TSIG key')));
  }
}

/** A zone's own secondaries (contract §18): who may transfer it with which key, and who gets its NOTIFYs. */
@Controller('zones/:zone/secondaries')
export class SecondariesController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: TransferQueries,
  ) {}

  @Get()
  async list(@CurrentPrincipal() p: Principal, @Param('zone') zone: string) {
    return { secondaries: await this.queries.secondaries(p.accountId, zone) };
  }

  @Post()
  @HttpCode(201)
  async add(
    @CurrentPrincipal() p: Principal,
    @Param('zone') zone: string,
    @Body() body: AddSecondaryDto,
    @ClientIp() ip: string,
  ) {
    const id: string = await this.commands.execute(
      new AddSecondary(callerOf(p, ip), zone, body.address, body.tsig_key),
    );
    const added = (await this.queries.secondaries(p.accountId, zone)).find((s) => s.id === id);
    return added;
  }

  @Delete(':id')
  @HttpCode(204)
  async remove(
    @CurrentPrincipal() p: Principal,
    @Param('zone') zone: string,
    @Param('id') id: string,
    @ClientIp() ip: string,
  ): Promise<void> {
    await this.commands.execute(new RemoveSecondary(callerOf(p, ip), zone, requireId(id, 'secondary')));
  }
}
