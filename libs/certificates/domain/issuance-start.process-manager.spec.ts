import { ProcessFact, ProcessTrigger, processStreamDecider } from '../../consumers/process-manager';
import { processSpecFor } from '../../shared/testing/process-manager-spec';
import { DriveIssuance, issuanceStartProcess as pm, IssuanceWork } from './issuance-start.process-manager';

type Fact = ProcessFact<IssuanceWork, DriveIssuance>;

const { given } = processSpecFor(processStreamDecider(pm));

const CERT = 'c-1';
const work = (cause: IssuanceWork['cause']): ProcessTrigger<IssuanceWork> => ({ kind: 'observed', process: CERT, fact: { type: 'work_requested', cause } });
const observed = (id: string, cause: IssuanceWork['cause']): Fact => ({
  type: 'ProcessEventObserved',
  data: { process: CERT, event_id: id, fact: { type: 'work_requested', cause } },
});
const drive = (cause: string): Fact => ({
  type: 'ProcessCommandIssued',
  data: { command_id: `certificate-issuance:${CERT}:${cause}`, command: { type: 'DriveIssuance', certificateId: CERT } },
});

describe('certificate issuance start process manager', () => {
  it('a certificate requested drives its issuance, with an id derived from the certificate and the cause', () => {
    given([])
      .when(work('requested'), 'e1')
      .then([observed('e1', 'requested'), drive('requested')]);
  });

  it('each renewal attempt and the deletion drive it once more; a redelivered event records nothing', () => {
    const history = [observed('e1', 'requested'), drive('requested')];
    given(history)
      .when(work('renewal:2'), 'e2')
      .then([observed('e2', 'renewal:2'), drive('renewal:2')]);
    given(history)
      .when(work('deleted'), 'e3')
      .then([observed('e3', 'deleted'), drive('deleted')]);
    given(history).when(work('requested'), 'e1').then([]);
  });

  it('reads the certificate id and the attempt from the events it observes', () => {
    const event = (type: string, data: object) =>
      ({ id: 'x', streamId: `certificate-${CERT}`, revision: 0, type, data, metadata: {}, position: { commit: 1n, prepare: 1n }, created: new Date() }) as any;
    expect(pm.observe(event('RenewalRequested', { certificate_id: CERT, attempt: 3, trigger: 'automatic', at: 'a' }))).toEqual({
      process: CERT,
      fact: { type: 'work_requested', cause: 'renewal:3' },
    });
    expect(pm.observe(event('CertificateDeleted', { certificate_id: CERT, account_id: 1, domain: 'd', at: 'a' }))?.fact.cause).toBe('deleted');
    expect(pm.observe(event('CertificateIssued', { certificate_id: CERT }))).toBeNull();
  });
});
