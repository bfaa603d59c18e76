import { DynamicModule, Global, Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { AppConfig, APP_CONFIG } from '../../../libs/shared/config';
import { Clock, CLOCK } from '../../../libs/shared/clock';
import { SecretBox, SECRET_BOX } from '../../../libs/shared/crypto';
import { Logger, LOGGER } from '../../../libs/shared/logger';
import { Metrics, METRICS } from '../../../libs/shared/metrics';
import { EventStore, EVENT_STORE } from '../../../libs/eventstore/event-store.port';
import { EventStreams } from '../../../libs/eventstore/event-streams';
import { ReadStore, READ_STORE } from '../../../libs/readstore/read-store.port';
import { ProjectionEngine } from '../../../libs/projection-engine/projection-engine';
import { CommandRunner, READ_MODELS_CATCH_UP } from '../../../libs/eventstore/command-runner';
import { Reservations } from '../../../libs/eventstore/reservations';
import { Coordination, COORDINATION } from '../../../libs/consumers/coordination';
import { WorkerProcessManagers } from '../../../libs/consumers/worker-process-manager';
import { KeyUsageStore, KEY_USAGE_STORE } from '../../../libs/api-keys/application/key-usage.store';

/** Everything created before Nest starts (stores open, secrets resolved) and shared by every module. */
export interface CoreDependencies {
  config: AppConfig;
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
  secretBox: SecretBox;
  eventStore: EventStore;
  readStore: ReadStore;
  projections: ProjectionEngine;
  keyUsage: KeyUsageStore;
  coordination: Coordination;
}

@Global()
@Module({})
export class CoreModule {
  static forRoot(deps: CoreDependencies): DynamicModule {
    const values = [
      { provide: APP_CONFIG, useValue: deps.config },
      { provide: CLOCK, useValue: deps.clock },
      { provide: LOGGER, useValue: deps.logger },
      { provide: METRICS, useValue: deps.metrics },
      { provide: SECRET_BOX, useValue: deps.secretBox },
      { provide: EVENT_STORE, useValue: deps.eventStore },
      { provide: READ_STORE, useValue: deps.readStore },
      { provide: ProjectionEngine, useValue: deps.projections },
      { provide: READ_MODELS_CATCH_UP, useValue: deps.projections },
      { provide: KEY_USAGE_STORE, useValue: deps.keyUsage },
      { provide: COORDINATION, useValue: deps.coordination },
      { provide: EventStreams, useValue: new EventStreams(deps.eventStore) },
    ];
    // Built by Nest from the values above.
    const services = [CommandRunner, Reservations, WorkerProcessManagers];
    return {
      module: CoreModule,
      imports: [CqrsModule.forRoot()],
      providers: [...values, ...services],
      exports: [...values.map((p) => p.provide), ...services, CqrsModule],
    };
  }
}
