import type { Plan } from '../../accounts/domain/account.events';
import { limitReached, PLAN_LIMITS } from '../../accounts/domain/plan-limits';
import { Decider, unreachable } from '../../shared/decider';
import { forbidden, notFound } from '../../shared/errors';
import { KeyZone, TsigAlgorithm, TsigKeyEvent, TsigKeyPurpose, UpdateAllow } from './transfer.events';

export const PLAN_MESSAGE = 'TSIG keys and secondaries require Pro or Elite';
export const planAllowsTransfers = (plan: Plan) => PLAN_LIMITS[plan].tsigKeys !== null;

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
        keys.set(d.key_id, {
          id: d.key_id,
          name: d.name,
          algorithm: d.algorithm,
          purpose: d.purpose,
          zones: d.zones,
          allow: d.allow,
          created_at: d.created_at,
        });
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
        const limit = PLAN_LIMITS[command.plan].tsigKeys;
        if (limit === null) throw forbidden('plan_required', PLAN_MESSAGE);
        if (state.keys.size >= limit) throw limitReached('tsigKeys', limit);
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
        return [
          {
            type: 'TsigKeyDeleted',
            data: { key_id: key.id, account_id: command.accountId, name: key.name, at: command.at },
          },
        ];
      }
      default:
        return unreachable(command);
    }
  },
};
