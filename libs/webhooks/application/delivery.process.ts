import { Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { ProcessManagerRuntime } from '../../consumers/process-manager-runtime';
import { WorkerProcessManagers } from '../../consumers/worker-process-manager';
import {
  DeliveryCommand,
  DeliveryFact,
  DeliveryState,
  webhookDeliveryProcess,
} from '../domain/delivery.process-manager';
import { WebhookDeliverer } from './deliverer';
import { CommandBus } from '@nestjs/cqrs';
import { DisableFailingWebhook } from './webhook.commands';

/** Retries are due to the second: a first retry must come within 5 s of the failure (contract §19). */
export const WEBHOOK_TIMER_POLL_MS = 250;

/**
 * Runs the delivery process manager on the worker: each endpoint's process sends one
 * delivery at a time, endpoints side by side (`concurrentProcesses`), so a slow or dead
 * receiver holds up only its own endpoint.
 */
@Injectable()
export class WebhookDeliveryProcess implements OnApplicationBootstrap, OnApplicationShutdown {
  private runtime: ProcessManagerRuntime<DeliveryState, DeliveryFact, DeliveryCommand> | null = null;

  constructor(
    private readonly processManagers: WorkerProcessManagers,
    private readonly deliverer: WebhookDeliverer,
    private readonly commands: CommandBus,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.runtime = await this.processManagers.start(
      webhookDeliveryProcess,
      async (command, context) => {
        if (command.type === 'DeliverWebhook') await this.deliverer.deliver(command, context);
        else await this.commands.execute(new DisableFailingWebhook(command.accountId, command.webhookId));
      },
      { concurrentProcesses: true, timerPollMs: WEBHOOK_TIMER_POLL_MS },
    );
  }

  async onApplicationShutdown(): Promise<void> {
    await this.runtime?.stop();
  }

  /** Catches up and fires what is due by the clock's now (tests). */
  runDue(): Promise<number> {
    return this.runtime ? this.runtime.runDue() : Promise.resolve(0);
  }
}
