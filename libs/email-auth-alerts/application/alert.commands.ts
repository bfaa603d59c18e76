import { EvaluateAlert } from '../domain/alert.decider';

/**
 * An observation for one alert stream (a rule of one domain of one account), from the
 * daily report process manager or the hourly record check. `commandId` is the sender's
 * (the process manager's command id, or the check's hour): sent twice, it appends once.
 */
export class ObserveAlert {
  constructor(
    readonly observation: EvaluateAlert,
    readonly commandId: string,
  ) {}
}
