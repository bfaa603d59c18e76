import type { Plan } from '../../accounts/domain/account.events';
import { Decider, unreachable } from '../../shared/decider';
import { badRequest, conflict, forbidden, notFound } from '../../shared/errors';
import { SecondaryEvent } from './transfer.events';
import { PLAN_MESSAGE, planAllowsTransfers } from './tsig-keyring.decider';

/** Secondaries per zone: enough for any real setup, and a bound on the NOTIFYs one change sends. */
export const MAX_SECONDARIES_PER_ZONE = 10;

export interface Secondary {
  id: string;
  address: string;
  port: number;
  tsig_key: string;
}

export interface SecondariesState {
  secondaries: Map<string, Secondary>;
}

export type SecondariesCommand =
  | {
      type: 'AddSecondary';
      plan: Plan;
      accountId: number;
      zoneId: string;
      zoneName: string;
      secondaryId: string;
      address: string;
      port: number;
      /** The key the request names, as found among the account's keys (null: none of that name). */
      key: { name: string; purpose: string } | null;
      at: string;
    }
  | { type: 'RemoveSecondary'; accountId: number; zoneId: string; zoneName: string; secondaryId: string; at: string };

export const secondariesDecider: Decider<SecondariesState, SecondariesCommand, SecondaryEvent> = {
  initialState: () => ({ secondaries: new Map() }),

  evolve(state, event) {
    const secondaries = new Map(state.secondaries);
    switch (event.type) {
      case 'SecondaryAdded': {
        const d = event.data;
        secondaries.set(d.secondary_id, { id: d.secondary_id, address: d.address, port: d.port, tsig_key: d.tsig_key });
        return { secondaries };
      }
      case 'SecondaryRemoved':
        secondaries.delete(event.data.secondary_id);
        return { secondaries };
      default:
        return unreachable(event);
    }
  },

  decide(command, state) {
    switch (command.type) {
      case 'AddSecondary': {
        if (!planAllowsTransfers(command.plan)) throw forbidden('plan_required', PLAN_MESSAGE);
        if (!command.key || command.key.purpose !== 'transfer')
          throw badRequest('validation_failed', 'tsig_key: not a transfer key of the account');
        const same = [...state.secondaries.values()].some(
          (s) => s.address === command.address && s.port === command.port,
        );
        if (same)
          throw conflict('secondary_exists', `${command.address} is already a secondary of ${command.zoneName}`);
        if (state.secondaries.size >= MAX_SECONDARIES_PER_ZONE)
          throw forbidden('limit_reached', `Secondaries: at most ${MAX_SECONDARIES_PER_ZONE} per zone`);
        return [
          {
            type: 'SecondaryAdded',
            data: {
              secondary_id: command.secondaryId,
              zone_id: command.zoneId,
              zone_name: command.zoneName,
              account_id: command.accountId,
              address: command.address,
              port: command.port,
              tsig_key: command.key.name,
              at: command.at,
            },
          },
        ];
      }
      case 'RemoveSecondary':
        if (!state.secondaries.has(command.secondaryId)) throw notFound('Secondary not found');
        return [
          {
            type: 'SecondaryRemoved',
            data: {
              secondary_id: command.secondaryId,
              zone_id: command.zoneId,
              zone_name: command.zoneName,
              account_id: command.accountId,
              at: command.at,
            },
          },
        ];
      default:
        return unreachable(command);
    }
  },
};
