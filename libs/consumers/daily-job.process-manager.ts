import type { ProcessDecision, ProcessManager, ProcessTrigger } from './process-manager';

/**
 * A job that runs once a day at a fixed UTC time (the DMARC nightly job, the certificate
 * renewal job) as a process manager instead of a cron in every worker: one process,
 * `schedule`, whose timers are the nights (`night:2026-03-01`). The events that give the
 * job something to do start the schedule (the first timer); each night's firing sends
 * the job's command, with an id derived from the night, and schedules the next night.
 * Nights missed while no worker ran are not caught up: the firing after a restart runs
 * the job once and schedules the night after it.
 */
export interface DailyTime {
  hour: number;
  minute: number;
}

/** An event that means the job has work: recorded with the time it was appended. */
export interface DailyJobFact {
  type: 'work_appeared';
  at: string;
}

export interface DailyJobState {
  /** The night whose timer is pending; null before the first event, or never (a night always follows a firing). */
  nextNight: string | null;
}

export interface RunDailyJob {
  type: 'RunDailyJob';
  job: string;
  /** The night the timer was for (YYYY-MM-DD). */
  night: string;
  /** When it fired: the job's `now`, fixed in the command so a resend after a crash does the same work. */
  at: string;
}

export const DAILY_JOB_PROCESS = 'schedule';
/** How often the worker looks for a due night: a daily job runs within a minute of its time. */
export const DAILY_JOB_TIMER_POLL_MS = 60_000;
const NIGHT_TIMER = 'night:';

/** The first `time` of day strictly after `after` (UTC). */
export function nextOccurrence(after: string, time: DailyTime): string {
  const t = new Date(after);
  const candidate = Date.UTC(t.getUTCFullYear(), t.getUTCMonth(), t.getUTCDate(), time.hour, time.minute);
  return new Date(candidate > t.getTime() ? candidate : candidate + 86_400_000).toISOString();
}

export function dailyJobProcess(
  name: string,
  time: DailyTime,
  startedBy: readonly string[],
): ProcessManager<DailyJobState, DailyJobFact, RunDailyJob> {
  const schedule = (after: string): ProcessDecision<RunDailyJob> => {
    const dueAt = nextOccurrence(after, time);
    return { type: 'schedule', timerId: `${NIGHT_TIMER}${dueAt.slice(0, 10)}`, dueAt };
  };
  return {
    name,
    observes: startedBy,
    observe: (event) => ({
      process: DAILY_JOB_PROCESS,
      fact: { type: 'work_appeared', at: event.created.toISOString() },
    }),
    initialState: () => ({ nextNight: null }),
    evolve(state, trigger) {
      if (trigger.kind === 'observed')
        return state.nextNight ? state : { nextNight: nextOccurrence(trigger.fact.at, time).slice(0, 10) };
      return { nextNight: nextOccurrence(trigger.at, time).slice(0, 10) };
    },
    decide(trigger: ProcessTrigger<DailyJobFact>, state): ProcessDecision<RunDailyJob>[] {
      if (trigger.kind === 'observed') return state.nextNight ? [] : [schedule(trigger.fact.at)];
      if (!trigger.timerId.startsWith(NIGHT_TIMER)) return [];
      const night = trigger.timerId.slice(NIGHT_TIMER.length);
      return [
        {
          type: 'send',
          commandId: `${name}:${night}`,
          command: { type: 'RunDailyJob', job: name, night, at: trigger.at },
        },
        schedule(trigger.at),
      ];
    },
  };
}
