import { dailyJobProcess } from '../../consumers/daily-job.process-manager';

/**
 * The daily certificate job (03:17 UTC) as a process manager: the first certificate
 * issued starts the schedule, and each day one worker (the lease holder) runs it. A
 * command sent again after a crash is harmless: a renewal already started is refused by
 * the decider (and reported as skipped), an expired certificate does not expire twice.
 */
export const certificateRenewalProcess = dailyJobProcess('certificate-renewals', { hour: 3, minute: 17 }, [
  'CertificateIssued',
]);
