import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeQueryLogStoreConformance } from './conformance/query-log-store.conformance';
import { MongoQueryLogStore } from './mongo-query-log.store';
import { SqliteQueryLogStore } from './sqlite-query-log.store';

describeQueryLogStoreConformance('sqlite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'qlog-conf-'));
  const store = new SqliteQueryLogStore(join(dir, 'dns-query-log.db'));
  return {
    store,
    dispose: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

// MongoDB needs a running server; set MONGODB_URL (e.g. mongodb://localhost:27017) to include it.
const mongoUrl = process.env.MONGODB_URL;
(mongoUrl ? describe : describe.skip)('with MongoDB', () => {
  describeQueryLogStoreConformance('mongodb', async () => {
    const store = await MongoQueryLogStore.connect(mongoUrl!, `qlog_${randomUUID().replace(/-/g, '').slice(0, 12)}`);
    return {
      store,
      dispose: async () => {
        await store.dropDatabase();
        await store.close();
      },
    };
  });
});
