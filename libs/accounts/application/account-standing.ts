import { Injectable } from '@nestjs/common';
import { ProjectionEngine } from '../../projection-engine/projection-engine';

/** What authentication needs to know of an account: who it is and whether it may act. */
export interface AccountStanding {
  _id: number;
  username: string;
  email: string;
  plan: string;
  disabled: boolean;
  email_auth: { tier: string; domains: string[] };
}

/** Reads an account's standing from the accounts read model (one lookup per authenticated request). */
@Injectable()
export class AccountStandings {
  constructor(private readonly projections: ProjectionEngine) {}

  of(id: number): Promise<AccountStanding | null> {
    return this.projections.collection<AccountStanding>('accounts', 'accounts').findOne({ _id: id });
  }
}
