import { dailyJobProcess } from '../../consumers/daily-job.process-manager';
import { EMAIL_AUTH_EVENT_TYPES } from './email-auth.events';

/**
 * The DMARC nightly job (seed: 02:00 UTC) as a process manager: a zone's first email
 * authentication setting starts the schedule, and each night one worker (the lease
 * holder) runs the job. The job records a night once per zone (event ids derived from
 * zone and night), so a command sent again after a crash changes nothing.
 */
export const dmarcNightlyProcess = dailyJobProcess(
  'dmarc-nightly',
  { hour: 2, minute: 0 },
  // The job's own record of a night is no sign of new work (and would add a fact to the schedule every night).
  EMAIL_AUTH_EVENT_TYPES.filter((t) => t !== 'DmarcStageMetricsRecorded'),
);
