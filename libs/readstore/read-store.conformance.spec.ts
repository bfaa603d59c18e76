import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeReadStoreConformance } from './conformance/read-store.conformance';
import { EmbeddedReadStore } from './embedded/embedded-read-store';
import { MongoReadStore } from './mongo/mongo-read-store';
import { ReadStore } from './read-store.port';

// As the service runs it (writer thread, document cache), and with writes on the calling
// thread and no cache, so every read goes to SQLite.
for (const [writer, cacheMiB] of [
  ['thread', 16],
  ['inline', 0],
] as const) {
  describeReadStoreConformance(`embedded (${writer} writer, document cache ${cacheMiB} MiB)`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rs-conf-'));
    const file = join(dir, 'read.db');
    const open = () => new EmbeddedReadStore({ file, flushIntervalMs: 10, cacheMiB, writer });
    let store: ReadStore = open();
    return {
      store,
      reopen: async () => {
        await store.close();
        return (store = open());
      },
      dispose: async () => {
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  });
}

// MongoDB needs a running server; set MONGODB_URL (e.g. mongodb://localhost:27017) to include it.
// Each run works in its own database and drops it afterwards.
const mongoUrl = process.env.MONGODB_URL;
(mongoUrl ? describe : describe.skip)('with MongoDB', () => {
  describeReadStoreConformance('mongodb', async () => {
    const dbName = `conformance_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
    let store = await MongoReadStore.connect(mongoUrl!, dbName);
    return {
      store,
      reopen: async () => {
        await store.close();
        return (store = await MongoReadStore.connect(mongoUrl!, dbName));
      },
      dispose: async () => {
        await store.dropDatabase();
        await store.close();
      },
    };
  });
});
