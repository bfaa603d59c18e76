import { EventMetadata } from '../../eventstore/event-store.port';
import { RolloverPhase } from '../domain/dnssec.decider';

/** The zone a DNSSEC command is about: an imported zone of an account, or a dynamic-DNS zone (account null). */
export interface DnssecTarget {
  zone: string;
  zoneId: string;
  accountId: number | null;
}

/** Turn signing on (a new key with `algorithm`, or the zone's or the default one) or off (once the parent holds no DS). */
export class SetDnssecEnabled {
  constructor(
    readonly target: DnssecTarget,
    readonly enabled: boolean,
    readonly algorithm: number | undefined,
    readonly metadata: EventMetadata,
  ) {}
}

export class StartDnssecRollover {
  constructor(
    readonly target: DnssecTarget,
    readonly metadata: EventMetadata,
  ) {}
}

/**
 * The process manager's steps, at the time their timer fell due. Idempotent: the decider
 * ignores a step already taken.
 */
export class RefreshDnssecSignatures {
  constructor(
    readonly target: DnssecTarget,
    readonly at: Date,
  ) {}
}

export class CheckParentDs {
  constructor(
    readonly target: DnssecTarget,
    readonly at: Date,
  ) {}
}

export class AdvanceDnssecRollover {
  constructor(
    readonly target: DnssecTarget,
    readonly phase: RolloverPhase,
    readonly at: Date,
  ) {}
}
