import type { ProcessDecision, ProcessManager, ProcessTrigger } from '../../consumers/process-manager';
import type { RecordedEvent } from '../../eventstore/event-store.port';

/** What the process records of the account events it observes. */
export type DeletionFact = { type: 'deleted'; account_id: number; source_ip: string | null } | { type: 'removed' };

export type DeletionState = { status: 'none' } | { status: 'removing'; accountId: number } | { status: 'done' };

export interface RemoveAccountDataCommand {
  type: 'RemoveAccountData';
  accountId: number;
  /** The deletion request's address: the removal events carry it, as the user's own deletes would. */
  sourceIp: string | null;
}

const accountOf = (event: RecordedEvent): number | null => {
  const m = /^account-(\d+)$/.exec(event.streamId);
  return m ? Number(m[1]) : null;
};

/**
 * Account deletion (decision 0090), one process per account: `AccountDeleted` sends
 * `RemoveAccountData` once (its id derived from the account), whose handler removes the
 * account's webhooks, keys, certificates, monitors, hosts, zones and TSIG keys through their
 * own commands and ends with `AccountDataRemoved`. A crash at any point resends the command
 * with the same id, and each removal of something already gone is a no-op, so the work
 * resumes where it stopped.
 */
export const accountDeletionProcess: ProcessManager<DeletionState, DeletionFact, RemoveAccountDataCommand> = {
  name: 'account-deletion',
  observes: ['AccountDeleted', 'AccountDataRemoved'],

  observe(event) {
    const accountId = accountOf(event);
    if (accountId === null) return null;
    if (event.type === 'AccountDeleted')
      return {
        process: String(accountId),
        fact: { type: 'deleted', account_id: accountId, source_ip: event.metadata.source_ip ?? null },
      };
    if (event.type === 'AccountDataRemoved') return { process: String(accountId), fact: { type: 'removed' } };
    return null;
  },

  initialState: () => ({ status: 'none' }),

  evolve(state, trigger) {
    if (trigger.kind === 'timer') return state;
    if (trigger.fact.type === 'deleted')
      return state.status === 'none' ? { status: 'removing', accountId: trigger.fact.account_id } : state;
    return { status: 'done' };
  },

  decide(trigger: ProcessTrigger<DeletionFact>, state): ProcessDecision<RemoveAccountDataCommand>[] {
    if (trigger.kind !== 'observed' || trigger.fact.type !== 'deleted' || state.status !== 'none') return [];
    const { account_id: accountId, source_ip: sourceIp } = trigger.fact;
    return [
      {
        type: 'send',
        commandId: `account-deletion:${accountId}`,
        command: { type: 'RemoveAccountData', accountId, sourceIp },
      },
    ];
  },
};
