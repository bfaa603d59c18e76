import { Body, Controller, Get, HttpCode, Inject, Param, Post, Put, Query } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { AdminOnly } from '../auth/principal';
import { ChangeSubscription, SetAccountDisabled } from '../accounts/application/account.commands';
import { AccountDirectory } from '../accounts/application/account-directory';
import { AccountQueries } from '../accounts/application/account.queries';
import { EVENT_STORE, EventStore, positionToString } from '../eventstore/event-store.port';
import { ProjectionEngine } from '../projection-engine/projection-engine';
import { notFound, validationFailed } from '../shared/errors';
import { parseLimit, parseOptionalString } from '../shared/http/paging';
import { redact } from '../shared/redact';
import { SubscriptionDto } from './admin.dto';

const accountId = (raw: string): number => {
  if (!/^\d{1,15}$/.test(raw)) throw validationFailed('id must be an account id');
  return Number(raw);
};

/** Operator endpoints (X-Admin-Token); the CLI is a client of these. */
@AdminOnly()
@Controller('admin')
export class AdminController {
  constructor(
    private readonly commands: CommandBus,
    private readonly accounts: AccountQueries,
    private readonly directory: AccountDirectory,
    private readonly projections: ProjectionEngine,
    @Inject(EVENT_STORE) private readonly store: EventStore,
  ) {}

  private async existing(raw: string): Promise<number> {
    const id = accountId(raw);
    if (!(await this.directory.load(id)).state.exists) throw notFound('Account not found');
    return id;
  }

  @Put('accounts/:id/subscription')
  async subscription(@Param('id') raw: string, @Body() body: SubscriptionDto) {
    const id = await this.existing(raw);
    if (body.plan === undefined && body.email_auth === undefined) throw validationFailed('give plan and/or email_auth');
    const emailAuth = body.email_auth
      ? { tier: body.email_auth.tier, domains: [...new Set(body.email_auth.domains)].sort() }
      : undefined;
    await this.commands.execute(new ChangeSubscription(id, body.plan, emailAuth));
    return this.accounts.account(id);
  }

  @Post('accounts/:id/disable')
  @HttpCode(200)
  async disable(@Param('id') raw: string) {
    const id = await this.existing(raw);
    await this.commands.execute(new SetAccountDisabled(id, true));
    return this.accounts.account(id);
  }

  @Post('accounts/:id/enable')
  @HttpCode(200)
  async enable(@Param('id') raw: string) {
    const id = await this.existing(raw);
    await this.commands.execute(new SetAccountDisabled(id, false));
    return this.accounts.account(id);
  }

  /**
   * An account's audit log for operators, the same pages as `/account/audit`: after the owner
   * deleted the account it is kept (decision 0090) and this is where it is read.
   */
  @Get('accounts/:id/audit')
  async audit(@Param('id') raw: string, @Query() query: Record<string, unknown>) {
    const id = await this.existing(raw);
    return this.accounts.audit(id, parseOptionalString(query.cursor, 'cursor'), parseLimit(query.limit, 50));
  }

  @Get('projections')
  async projectionStatus() {
    return { projections: await this.projections.status() };
  }

  @Post('projections/:name/rebuild')
  @HttpCode(202)
  async rebuild(@Param('name') name: string, @Query('wait') wait?: string) {
    if (!this.projections.names().includes(name)) throw notFound(`No projection named ${name}`);
    const { generation } = await this.projections.rebuild(name, { wait: wait === 'true' });
    return { projection: name, generation, status: wait === 'true' ? 'switched' : 'rebuilding' };
  }

  /** A stream's events in order, for audits (`streams:replay`); secrets stay redacted. */
  @Get('streams/:stream')
  async stream(@Param('stream') stream: string, @Query() query: Record<string, string>) {
    const from = query.from_revision === undefined ? 0 : Number(query.from_revision);
    if (!Number.isInteger(from) || from < 0) throw validationFailed('from_revision must be a non-negative integer');
    const limit = parseLimit(query.limit, 1000, 1, 10000);
    const events = await this.store.readStream(stream, { fromRevision: from, maxCount: limit });
    if (events.length === 0 && from === 0) throw notFound(`No stream named ${stream}`);
    return {
      stream,
      events: events.map((e) => ({
        id: e.id,
        revision: e.revision,
        position: positionToString(e.position),
        type: e.type,
        created: e.created.toISOString(),
        data: redact(e.data),
        metadata: e.metadata,
      })),
    };
  }
}
