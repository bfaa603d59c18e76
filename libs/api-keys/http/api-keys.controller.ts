import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ClientIp, CurrentPrincipal, Principal, actorOf } from '../../auth/principal';
import { validationFailed } from '../../shared/errors';
import { CreateApiKey, DeactivateApiKey } from '../application/api-key.commands';
import { CreatedKey } from '../application/api-key.handlers';
import { ApiKeyQueries, keyView } from '../application/api-key.queries';
import { CreateApiKeyDto } from './api-key.dto';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

@Controller('api-keys')
export class ApiKeysController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: ApiKeyQueries,
  ) {}

  @Post()
  @HttpCode(201)
  async create(@CurrentPrincipal() p: Principal, @Body() body: CreateApiKeyDto, @ClientIp() ip: string) {
    const access = body.access ?? 'account';
    if (
      access === 'account' &&
      (body.domains !== undefined || body.failure_report_subjects !== undefined || body.expires_in_days !== undefined)
    ) {
      throw validationFailed('domains, failure_report_subjects and expires_in_days apply only to email_auth:read keys');
    }
    const created: CreatedKey = await this.commands.execute(
      new CreateApiKey(
        p.accountId,
        body.name,
        access,
        body.domains ?? [],
        body.failure_report_subjects ?? false,
        body.expires_in_days ?? 365,
        actorOf(p),
        ip,
      ),
    );
    const e = created.event;
    const { id, user_id, ...rest } = keyView({ ...e, id: e.key_id, is_active: true }, null, true);
    return { id, user_id, key: created.key, ...rest };
  }

  @Get()
  async list(@CurrentPrincipal() p: Principal) {
    await this.queries.assertMayList(p.accountId);
    return { keys: await this.queries.listActive(p.accountId) };
  }

  @Delete(':id')
  @HttpCode(204)
  async deactivate(@CurrentPrincipal() p: Principal, @Param('id') id: string, @ClientIp() ip: string): Promise<void> {
    if (!UUID.test(id)) throw validationFailed('id must be an API key id');
    await this.commands.execute(new DeactivateApiKey(p.accountId, id.toLowerCase(), actorOf(p), ip));
  }
}
