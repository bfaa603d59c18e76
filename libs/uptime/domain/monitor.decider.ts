import { Plan, PLANS } from '../../accounts/domain/account.events';
import { PLAN_LIMITS } from '../../accounts/domain/plan-limits';
import { Decider, unreachable } from '../../shared/decider';
import { forbidden } from '../../shared/errors';
import { MonitorEvent } from './uptime.events';

/** Seed limits: monitored domains per plan (from the one table of plan limits). */
export const MONITOR_LIMITS = Object.fromEntries(PLANS.map((p) => [p, PLAN_LIMITS[p].monitoredDomains])) as Record<
  Plan,
  number
>;
export const LIMIT_MESSAGE = 'Monitoring limit reached for your plan';

export interface MonitorsState {
  /** Monitored domain ids with their fqdn (kept for the release events). */
  monitored: Map<number, string>;
}

export type MonitorsCommand =
  | {
      type: 'EnableMonitor';
      accountId: number;
      plan: Plan;
      domainId: number;
      fqdn: string;
      /**
       * Monitored ids whose domain has since been deleted (deletion is final, so the
       * handler may learn it from a read model): they are released and no longer count.
       */
      deletedDomainIds: number[];
      at: string;
    }
  | { type: 'DisableMonitor'; accountId: number; domainId: number; at: string };

export const monitorsDecider: Decider<MonitorsState, MonitorsCommand, MonitorEvent> = {
  initialState: () => ({ monitored: new Map() }),

  evolve(state, event) {
    const monitored = new Map(state.monitored);
    switch (event.type) {
      case 'MonitorEnabled':
        monitored.set(event.data.domain_id, event.data.fqdn);
        return { monitored };
      case 'MonitorDisabled':
        monitored.delete(event.data.domain_id);
        return { monitored };
      default:
        return unreachable(event);
    }
  },

  decide(command, state) {
    switch (command.type) {
      case 'EnableMonitor': {
        // Enabling twice is not an error and changes nothing (the toggle is a desired state).
        if (state.monitored.has(command.domainId)) return [];
        const released: MonitorEvent[] = command.deletedDomainIds
          .filter((id) => state.monitored.has(id))
          .map((id) => ({
            type: 'MonitorDisabled',
            data: {
              account_id: command.accountId,
              domain_id: id,
              fqdn: state.monitored.get(id)!,
              reason: 'domain_deleted',
              at: command.at,
            },
          }));
        if (state.monitored.size - released.length >= MONITOR_LIMITS[command.plan])
          throw forbidden('limit_reached', LIMIT_MESSAGE);
        return [
          ...released,
          {
            type: 'MonitorEnabled',
            data: { account_id: command.accountId, domain_id: command.domainId, fqdn: command.fqdn, at: command.at },
          },
        ];
      }
      case 'DisableMonitor': {
        const fqdn = state.monitored.get(command.domainId);
        if (fqdn === undefined) return [];
        return [
          {
            type: 'MonitorDisabled',
            data: { account_id: command.accountId, domain_id: command.domainId, fqdn, reason: 'user', at: command.at },
          },
        ];
      }
      default:
        return unreachable(command);
    }
  },
};
