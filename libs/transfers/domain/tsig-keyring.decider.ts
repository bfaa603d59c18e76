import type { Plan } from '../../accounts/domain/account.events';
import { Decider, unreachable } from '../../shared/decider';
import { forbidden, notFound } from '../../shared/errors';
import { KeyZone, TsigAlgorithm, TsigKeyEvent, TsigKeyPurpose, UpdateAllow } from './transfer.events';

/**
 * TSIG keys per plan (contract §16). TODO(lead): move into the plan limits table once it
 * exists on main (another branch adds one).
 */
export const TSIG_KEY_LIMITS: Record<Plan, number> = { free: 0, plus: 0, pro: 10, elite: 50 };
export const PLAN_MESSAGE = 'TSIG keys and secondaries require Pro or Elite';
export const planAllowsTransfers = (plan: Plan) => TSIG_KEY_LIMITS[plan] > 0;

export interface KeyringKey {
  id: string;
  name: string;
  algorithm: TsigAlgorithm;
  purpose: TsigKeyPurpose;
  zones: KeyZone[];
  allow: UpdateAllow[];
  created_at: string;
}

export interface TsigKeyringState {
  keys: Map<string, KeyringKey>;
}

export type TsigKeyringCommand =
  | {
      type: 'CreateTsigKey';
      accountId: number;
      plan: Plan;
      keyId: string;
      name: string;
      algorithm: TsigAlgorithm;
      purpose: TsigKeyPurpose;
      zones: KeyZone[];
      allow: UpdateAllow[];
      secretSealed: string;
      at: string;
    }
  | { type: 'DeleteTsigKey'; accountId: number; keyId: string; at: string };

export const tsigKeyringDecider: Decider<TsigKeyringState, TsigKeyringCommand, TsigKeyEvent> = {
  initialState: () => ({ keys: new Map() }),

  evolve(state, event) {
    const keys = new Map(state.keys);
    switch (event.type) {
      case 'TsigKeyCreated': {
        const d = event.data;
        keys.set(d.key_id, { id: d.key_id, name: d.name, algorithm: d.algorithm, purpose: d.purpose, zones: d.zones, allow: d.allow, created_at: d.created_at });
        return { keys };
      }
      case 'TsigKeyDeleted':
        keys.delete(event.data.key_id);
        return { keys };
      default:
        return unreachable(event);
    }
  },

  decide(command, state) {
    switch (command.type) {
      case 'CreateTsigKey': {
        const limit = TSIG_KEY_LIMITS[command.plan];
        if (limit === 0) throw forbidden('plan_required', PLAN_MESSAGE);
        if (state.keys.size >= limit) throw forbidden('limit_reached', `TSIG keys: your plan allows ${limit}`);
        return [
          {
            type: 'TsigKeyCreated',
            data: {
              key_id: command.keyId,
              account_id: command.accountId,
              name: command.name,
              algorithm: command.algorithm,
              purpose: command.purpose,
              zones: command.zones,
              allow: command.purpose === 'update' ? command.allow : [],
              secret_sealed: command.secretSealed,
              created_at: command.at,
            },
          },
        ];
      }
      case 'DeleteTsigKey': {
        const key = state.keys.get(command.keyId);
        if (!key) throw notFound('TSIG key not found');
        return [{ type: 'TsigKeyDeleted', data: { key_id: key.id, account_id: command.accountId, name: key.name, at: command.at } }];
      }
      default:
        return unreachable(command);
    }
  },
};
