import { Injectable } from '@nestjs/common';
import { EventStreams } from '../../eventstore/event-streams';
import { ProjectionEngine } from '../../projection-engine/projection-engine';
import { ZONES } from '../../../projections/zones.projection';
import { emailAuthDecider } from '../domain/email-auth.decider';
import { emailAuthStream } from '../domain/email-auth.events';
import { mtaStsPolicyFile } from '../domain/records';

/** The MTA-STS policy file of a zone, when the zone is served and its current owner set a policy. */
@Injectable()
export class MtaStsPolicies {
  constructor(
    private readonly streams: EventStreams,
    private readonly projections: ProjectionEngine,
  ) {}

  async policyFile(zone: string): Promise<string | null> {
    if (!/^[a-z0-9.-]{1,253}$/.test(zone)) return null;
    const served = await this.projections.readModel(ZONES).findOne({ name: zone });
    if (!served) return null;
    const { state } = await this.streams.loadState(emailAuthStream(zone), emailAuthDecider);
    if (state.accountId !== served.account_id || !state.mtaSts) return null;
    return mtaStsPolicyFile(state.mtaSts);
  }
}
