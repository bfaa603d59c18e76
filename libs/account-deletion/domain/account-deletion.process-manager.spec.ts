import { ProcessFact, processStreamDecider } from '../../consumers/process-manager';
import { processSpecFor } from '../../shared/testing/process-manager-spec';
import {
  accountDeletionProcess as pm,
  DeletionFact,
  RemoveAccountDataCommand,
} from './account-deletion.process-manager';

const { given } = processSpecFor(processStreamDecider(pm));

const deleted: DeletionFact = { type: 'deleted', account_id: 7, source_ip: '192.0.2.1' };
const observed = (fact: DeletionFact, id: string): ProcessFact<DeletionFact, RemoveAccountDataCommand> => ({
  type: 'ProcessEventObserved',
  data: { process: '7', event_id: id, fact },
});
const issued: ProcessFact<DeletionFact, RemoveAccountDataCommand> = {
  type: 'ProcessCommandIssued',
  data: {
    command_id: 'account-deletion:7',
    command: { type: 'RemoveAccountData', accountId: 7, sourceIp: '192.0.2.1' },
  },
};

describe('account deletion process manager (decision 0090)', () => {
  it('an account deleted sends RemoveAccountData once, its id derived from the account', () => {
    given([])
      .when({ kind: 'observed', process: '7', fact: deleted }, 'e1')
      .then([observed(deleted, 'e1'), issued]);
  });

  it('the deletion observed again (redelivered after a crash) records nothing', () => {
    given([observed(deleted, 'e1'), issued])
      .when({ kind: 'observed', process: '7', fact: deleted }, 'e1')
      .then([]);
  });

  it('the data removed ends the process and sends nothing', () => {
    given([observed(deleted, 'e1'), issued])
      .when({ kind: 'observed', process: '7', fact: { type: 'removed' } }, 'e2')
      .then([observed({ type: 'removed' }, 'e2')]);
  });
});
