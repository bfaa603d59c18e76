import { Injectable } from '@nestjs/common';
import { ACCOUNTS, AccountDoc } from '../../../projections/accounts.projection';
import { ProjectionEngine } from '../../projection-engine/projection-engine';

/** What authentication needs to know of an account: who it is, its plan and add-on, whether it may act. */
export type AccountStanding = Pick<AccountDoc, '_id' | 'username' | 'email' | 'plan' | 'disabled' | 'email_auth'>;

/** Reads an account's standing from the accounts read model (one lookup per authenticated request). */
@Injectable()
export class AccountStandings {
  constructor(private readonly projections: ProjectionEngine) {}

  of(id: number): Promise<AccountStanding | null> {
    return this.projections.readModel(ACCOUNTS).findOne({ _id: id });
  }
}
