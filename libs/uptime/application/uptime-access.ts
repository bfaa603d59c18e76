import { Injectable } from '@nestjs/common';
import { AccountDirectory } from '../../accounts/application/account-directory';
import { Plan } from '../../accounts/domain/account.events';
import { forbidden, notFound } from '../../shared/errors';

export const PLAN_MESSAGE = 'Uptime API access requires Plus or higher';
export const DOMAIN_NOT_FOUND = 'Domain not found';

/** A path id that is not a positive integer names no domain: the same 404 as a missing one. */
export function parseDomainId(raw: string): number {
  const id = /^[1-9]\d{0,15}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(id)) throw notFound(DOMAIN_NOT_FOUND);
  return id;
}

/** The plan gate of every /uptime endpoint (contract §6), from the account stream. */
@Injectable()
export class UptimeAccess {
  constructor(private readonly directory: AccountDirectory) {}

  async planOf(accountId: number): Promise<Plan> {
    const { state } = await this.directory.load(accountId);
    if (!state.exists) throw notFound('Account not found');
    if (state.plan === 'free') throw forbidden('plan_required', PLAN_MESSAGE);
    return state.plan;
  }
}
