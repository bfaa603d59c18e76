import type { ProcessDecision, ProcessManager, ProcessTrigger } from '../../consumers/process-manager';
import type { RecordedEvent } from '../../eventstore/event-store.port';
import type { TwoFactorEnabled, TwoFactorSetupExpired, TwoFactorSetupStarted } from './two-factor.events';

/** What the deadline process records of the 2FA events it observes (no secret, no token hash). */
export type SetupFact = { type: 'started'; account_id: number; expires_at: string } | { type: 'ended' };

export type SetupDeadlineState =
  { status: 'none' } | { status: 'pending'; accountId: number; expiresAt: string } | { status: 'ended' };

export interface ExpireSetupCommand {
  type: 'ExpireTwoFactorSetup';
  accountId: number;
  setupId: string;
}

export const SETUP_DEADLINE_TIMER = 'deadline';

const accountOf = (event: RecordedEvent): number | null => {
  const m = /^twofactor-(\d+)$/.exec(event.streamId);
  return m ? Number(m[1]) : null;
};

/**
 * The 2FA setup deadline, one process per setup: a setup started schedules a timer at
 * its `expires_at`; verifying the setup (or its expiry recorded by another path) ends
 * the process and cancels the timer; the timer firing while the setup is pending sends
 * `ExpireTwoFactorSetup`, whose id is derived from the setup so that it expires once.
 * A setup replaced by a newer one is left to the decider, which ignores the stale expiry.
 */
export const setupDeadlineProcess: ProcessManager<SetupDeadlineState, SetupFact, ExpireSetupCommand> = {
  name: '2fa-setup-deadline',
  observes: ['TwoFactorSetupStarted', 'TwoFactorEnabled', 'TwoFactorSetupExpired'],

  observe(event) {
    const accountId = accountOf(event);
    if (accountId === null) return null;
    switch (event.type) {
      case 'TwoFactorSetupStarted': {
        const d = event.data as TwoFactorSetupStarted['data'];
        return { process: d.setup_id, fact: { type: 'started', account_id: accountId, expires_at: d.expires_at } };
      }
      case 'TwoFactorEnabled':
        return { process: (event.data as TwoFactorEnabled['data']).setup_id, fact: { type: 'ended' } };
      case 'TwoFactorSetupExpired':
        return { process: (event.data as TwoFactorSetupExpired['data']).setup_id, fact: { type: 'ended' } };
      default:
        return null;
    }
  },

  initialState: () => ({ status: 'none' }),

  evolve(state, trigger) {
    if (trigger.kind === 'timer') return state.status === 'pending' ? { status: 'ended' } : state;
    if (trigger.fact.type === 'started')
      return { status: 'pending', accountId: trigger.fact.account_id, expiresAt: trigger.fact.expires_at };
    return { status: 'ended' };
  },

  decide(trigger: ProcessTrigger<SetupFact>, state): ProcessDecision<ExpireSetupCommand>[] {
    if (trigger.kind === 'timer') {
      if (state.status !== 'pending' || trigger.timerId !== SETUP_DEADLINE_TIMER) return [];
      return [
        {
          type: 'send',
          commandId: `2fa-setup-expired:${trigger.process}`,
          command: { type: 'ExpireTwoFactorSetup', accountId: state.accountId, setupId: trigger.process },
        },
      ];
    }
    if (trigger.fact.type === 'started') {
      return state.status === 'none'
        ? [{ type: 'schedule', timerId: SETUP_DEADLINE_TIMER, dueAt: trigger.fact.expires_at }]
        : [];
    }
    return state.status === 'pending' ? [{ type: 'cancel', timerId: SETUP_DEADLINE_TIMER }] : [];
  },
};
