import { Clock, systemClock } from '../../../libs/shared/clock';
import { AppConfig, dataPath } from '../../../libs/shared/config';
import { EventStore } from '../../../libs/eventstore/event-store.port';
import { SqliteEventStore } from '../../../libs/eventstore/sqlite/sqlite-event-store';
import { ReadStore } from '../../../libs/readstore/read-store.port';
import { Coordination } from '../../../libs/consumers/coordination';
import { ReadStoreCoordination } from '../../../libs/consumers/read-store-coordination';
import { SqliteCoordination } from '../../../libs/consumers/sqlite-coordination';
import { EmbeddedReadStore } from '../../../libs/readstore/embedded/embedded-read-store';

/**
 * Page cache of the main process's event-store connection. Commands read their streams'
 * recent pages and subscriptions the tail; SQLite's default here (16 MiB) filled with pages
 * of history read once by catch-ups, resident memory that bought no speed (docs/decisions/0023-memory-settings.md).
 */
const EVENT_STORE_PAGE_CACHE_MIB = 8;

/** EventStoreDB when EVENTSTORE_URL is set, else the embedded SQLite store under DATA_DIR. */
export async function createEventStore(config: AppConfig, clock: Clock = systemClock): Promise<EventStore> {
  if (config.eventStoreUrl) {
    const { EsdbEventStore } = await import('../../../libs/eventstore/esdb/esdb-event-store');
    return new EsdbEventStore(config.eventStoreUrl);
  }
  return new SqliteEventStore({
    file: dataPath(config, 'events.db'),
    now: () => clock.now().getTime(),
    pageCacheMiB: EVENT_STORE_PAGE_CACHE_MIB,
    commits: 'auto',
  });
}

/** MongoDB when MONGODB_URL is set, else the embedded engine: documents on disk under DATA_DIR, bounded caches in memory. */
export async function createReadStore(config: AppConfig): Promise<ReadStore> {
  if (config.mongodbUrl) {
    const { MongoReadStore } = await import('../../../libs/readstore/mongo/mongo-read-store');
    return MongoReadStore.connect(config.mongodbUrl);
  }
  return new EmbeddedReadStore({
    file: dataPath(config, 'readmodels.db'),
    cacheMiB: config.readStoreCacheMiB,
    pageCacheMiB: config.readStorePageCacheMiB,
  });
}

/**
 * Where the processes of one deployment coordinate their consumers (leases, published
 * positions, generations, timers): beside the embedded stores in DATA_DIR, or in the
 * read store when it is MongoDB (processes then share no disk).
 */
export async function createCoordination(config: AppConfig, readStore: ReadStore): Promise<Coordination> {
  if (config.mongodbUrl) return new ReadStoreCoordination(readStore);
  return new SqliteCoordination(dataPath(config, 'coordination.db'));
}
