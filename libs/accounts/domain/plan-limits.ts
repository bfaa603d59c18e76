import { forbidden } from '../../shared/errors';
import { Plan } from './account.events';

/**
 * Every per-plan quota (contract §16), in one table: features read their figure here, so a
 * plan's limits are changed in one place. `null`: the plan does not have the feature.
 */
export interface PlanLimits {
  zones: number;
  /** Records of one zone, counted over all its RRsets (each value of an RRset is one record). */
  recordsPerZone: number;
  ddnsHosts: number;
  /** The seed's monitoring limits (contract §6). */
  monitoredDomains: number;
  /** Contract §18–19 features of Pro and Elite. */
  tsigKeys: number | null;
  webhookEndpoints: number | null;
}

export const PLAN_LIMITS: Readonly<Record<Plan, Readonly<PlanLimits>>> = {
  free: { zones: 2, recordsPerZone: 500, ddnsHosts: 5, monitoredDomains: 5, tsigKeys: null, webhookEndpoints: null },
  plus: {
    zones: 10,
    recordsPerZone: 2_000,
    ddnsHosts: 25,
    monitoredDomains: 5,
    tsigKeys: null,
    webhookEndpoints: null,
  },
  pro: { zones: 50, recordsPerZone: 10_000, ddnsHosts: 100, monitoredDomains: 50, tsigKeys: 10, webhookEndpoints: 5 },
  elite: {
    zones: 250,
    recordsPerZone: 100_000,
    ddnsHosts: 500,
    monitoredDomains: 500,
    tsigKeys: 50,
    webhookEndpoints: 20,
  },
};

export type CountedLimit = 'zones' | 'recordsPerZone' | 'ddnsHosts';
/** Limits a 403 `limit_reached` can name: the counted ones and those of Pro/Elite features. */
export type NamedLimit = CountedLimit | 'tsigKeys';

const LIMIT_NAMES: Record<NamedLimit, string> = {
  zones: 'Zone limit',
  recordsPerZone: 'Record limit per zone',
  ddnsHosts: 'Dynamic-DNS host limit',
  tsigKeys: 'TSIG key limit',
};

/** 403 `limit_reached` naming the limit and its figure (contract §1, §16): "Zone limit reached for your plan (10)". */
export const limitReached = (what: NamedLimit, limit: number) =>
  forbidden('limit_reached', `${LIMIT_NAMES[what]} reached for your plan (${limit.toLocaleString('en-US')})`);
