import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandRunner } from '../../eventstore/command-runner';
import { alertDecider } from '../domain/alert.decider';
import { AlertEvent, alertStream } from '../domain/alert.events';
import { ObserveAlert } from './alert.commands';

/**
 * The command side of the alert streams. Event ids derive from the command id, and the
 * decider ignores an observation it has already seen, so a command sent twice after a
 * crash, or by two workers, appends once. Answers the events appended.
 */
@CommandHandler(ObserveAlert)
export class ObserveAlertHandler implements ICommandHandler<ObserveAlert, AlertEvent[]> {
  constructor(private readonly runner: CommandRunner) {}

  execute({ observation, commandId }: ObserveAlert): Promise<AlertEvent[]> {
    const stream = alertStream(observation.account_id, observation.rule, observation.zone);
    return this.runner.runOnce(stream, alertDecider, observation, commandId, {
      actor: 'system',
      account_id: observation.account_id,
    });
  }
}

export const ALERT_COMMAND_HANDLERS = [ObserveAlertHandler];
