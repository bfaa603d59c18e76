import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { certificateStream } from '../../certificates/domain/certificate.events';
import { ProcessManagerRuntime } from '../../consumers/process-manager-runtime';
import { WorkerProcessManagers } from '../../consumers/worker-process-manager';
import { nameBasedEventId } from '../../eventstore/event-id';
import { EVENT_STORE, EventStore } from '../../eventstore/event-store.port';
import { upcast } from '../../eventstore/upcasters';
import { CLOCK, Clock } from '../../shared/clock';
import {
  CertificateExpiring,
  certificateExpiringStream,
  certificateExpiryProcess,
  ExpiryCommand,
  ExpiryFact,
  ExpiryState,
} from '../domain/certificate-expiry.process-manager';
import { foldCertificateEvents } from '../domain/certificate-view';

/** Notices are due to the minute at most; an hourly look is plenty for a 14-day warning, a minute keeps tests short. */
const EXPIRY_TIMER_POLL_MS = 60_000;

/**
 * Marks certificates nearing their end (`CertificateExpiring`, which the outbox feeder turns
 * into `certificate.expiring`), when the certificate is still issued with that expiry.
 */
@Injectable()
export class CertificateExpiryProcess implements OnApplicationBootstrap, OnApplicationShutdown {
  private runtime: ProcessManagerRuntime<ExpiryState, ExpiryFact, ExpiryCommand> | null = null;

  constructor(
    private readonly processManagers: WorkerProcessManagers,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.runtime = await this.processManagers.start(
      certificateExpiryProcess,
      async (command, context) => {
        const view = foldCertificateEvents(
          (await this.store.readStream(certificateStream(command.certificateId))).map(upcast),
        );
        if (!view || view.status !== 'issued' || view.expires_at !== command.expiresAt) return;
        const { account_id, ...certificate } = view;
        const expiring: CertificateExpiring = {
          type: 'CertificateExpiring',
          data: {
            certificate_id: command.certificateId,
            account_id,
            expires_at: command.expiresAt,
            certificate,
            at: this.clock.now().toISOString(),
          },
        };
        await this.store.appendToStream(
          certificateExpiringStream(command.certificateId),
          [
            {
              id: nameBasedEventId(context.commandId),
              ...expiring,
              metadata: { version: 1, actor: 'system', account_id, causation_id: context.causationId },
            },
          ],
          'any',
        );
      },
      { timerPollMs: EXPIRY_TIMER_POLL_MS },
    );
  }

  async onApplicationShutdown(): Promise<void> {
    await this.runtime?.stop();
  }
}
