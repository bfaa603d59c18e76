import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeEventStoreConformance } from './conformance/event-store.conformance';
import { EsdbEventStore, esdbAdminRequest } from './esdb/esdb-event-store';
import { SqliteEventStore } from './sqlite/sqlite-event-store';
import { WrongExpectedVersionError } from './event-store.port';

const tempDir = () => mkdtempSync(join(tmpdir(), 'es-conf-'));

// Commits on the event loop, and on the commit thread as the service runs it (needs `npm run build`).
for (const commits of ['inline', 'thread'] as const) {
  describeEventStoreConformance(`sqlite (${commits} commits)`, async () => {
    const dir = tempDir();
    const store = new SqliteEventStore({ file: join(dir, 'events.db'), pollIntervalMs: 20, commits });
    return {
      store,
      dispose: async () => {
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  });
}

// EventStoreDB needs a running server, which CI provides and a laptop usually does not;
// set EVENTSTORE_URL (e.g. esdb://localhost:2113?tls=false) to include it.
const esdbUrl = process.env.EVENTSTORE_URL;
(esdbUrl ? describe : describe.skip)('with EventStoreDB', () => {
  describeEventStoreConformance('eventstoredb', async () => {
    const store = new EsdbEventStore(esdbUrl!);
    await store.ping();
    return { store, dispose: () => store.close() };
  });
});

describe('SqliteEventStore specifics', () => {
  let dir: string;
  beforeEach(() => (dir = tempDir()));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const ev = (type: string) => ({ id: randomUUID(), type, data: {} });

  it('keeps events and stream metadata across a reopen', async () => {
    const file = join(dir, 'events.db');
    const first = new SqliteEventStore({ file });
    await first.appendToStream('a-1', [ev('A'), ev('B')], 'no_stream');
    await first.setStreamMetadata('a-1', { maxAgeSeconds: 3600 });
    await first.close();
    const second = new SqliteEventStore({ file });
    expect((await second.readStream('a-1')).map((e) => e.type)).toEqual(['A', 'B']);
    expect((await second.appendToStream('a-1', [ev('C')], 1)).nextExpectedRevision).toBe(2);
    expect(second.scavenge(Date.now() + 7200_000)).toBe(2);
    await second.close();
  });

  it('scavenge deletes expired events but keeps the newest, so revisions carry on', async () => {
    const store = new SqliteEventStore({ file: join(dir, 'events.db') });
    await store.appendToStream('uptime-1', [ev('Check'), ev('Check'), ev('Check')], 'no_stream');
    await store.appendToStream('other-1', [ev('Kept')], 'no_stream');
    await store.setStreamMetadata('uptime-1', { maxAgeSeconds: 60 });
    expect(store.scavenge(Date.now())).toBe(0);
    expect(store.scavenge(Date.now() + 61_000)).toBe(2);
    const all = await store.readAll({ maxCount: 100 });
    expect(all.map((e) => [e.streamId, e.revision])).toEqual([
      ['uptime-1', 2],
      ['other-1', 0],
    ]);
    expect((await store.appendToStream('uptime-1', [ev('Check')], 2)).nextExpectedRevision).toBe(3);
    await store.close();
  });

  it('prunes by the time it is given (the injected clock), and what it pruned is gone from $all', async () => {
    const store = new SqliteEventStore({ file: join(dir, 'events.db') });
    await store.appendToStream('uptime-7', [ev('Check'), ev('Check')], 'no_stream');
    await store.setStreamMetadata('uptime-7', { maxAgeSeconds: 31 * 86_400 });
    expect(await store.pruneExpired(new Date(Date.now() + 30 * 86_400_000))).toBe(0);
    expect(await store.pruneExpired(new Date(Date.now() + 32 * 86_400_000))).toBe(1);
    expect((await store.readAll({ maxCount: 100 })).map((e) => e.revision)).toEqual([1]);
    await store.close();
  });

  it('turns an esdb connection string into its HTTP admin address', () => {
    expect(esdbAdminRequest('esdb://admin:changeit@es1:2113,es2:2113?tls=false', '/admin/scavenge')).toEqual({
      url: 'http://es1:2113/admin/scavenge',
      headers: { authorization: `Basic ${Buffer.from('admin:changeit').toString('base64')}` },
    });
    expect(esdbAdminRequest('esdb://localhost:2113', '/admin/scavenge')).toEqual({
      url: 'https://localhost:2113/admin/scavenge',
      headers: {},
    });
  });

  it('on the commit thread: stamps events with the injected clock, keeps append order, and commits what is queued before closing', async () => {
    const file = join(dir, 'events.db');
    const at = Date.parse('2031-05-06T07:08:09Z');
    const store = new SqliteEventStore({ file, commits: 'thread', now: () => at });
    // Many appends in one turn and more while their commit is in flight: every one lands, in order.
    const first = Array.from({ length: 50 }, (_, i) =>
      store.appendToStream('t-1', [ev(`E${i}`)], i === 0 ? 'no_stream' : 'any'),
    );
    await first[0];
    const second = Array.from({ length: 50 }, (_, i) => store.appendToStream('t-1', [ev(`E${50 + i}`)], 'any'));
    expect((await Promise.all([...first, ...second])).map((r) => r.nextExpectedRevision)).toEqual(
      Array.from({ length: 100 }, (_, i) => i),
    );
    await expect(store.appendToStream('t-1', [ev('Stale')], 3)).rejects.toThrow(WrongExpectedVersionError);
    const queued = store.appendToStream('t-2', [ev('Queued')], 'no_stream');
    await store.close();
    await expect(queued).resolves.toMatchObject({ nextExpectedRevision: 0 });
    const reopened = new SqliteEventStore({ file });
    const events = await reopened.readAll({ maxCount: 200 });
    expect(events.map((e) => e.type)).toEqual([...Array.from({ length: 100 }, (_, i) => `E${i}`), 'Queued']);
    expect(events.every((e) => e.created.getTime() === at)).toBe(true);
    expect(reopened.scavenge(at)).toBe(0);
    await reopened.close();
  });

  it('sees appends made by another process through polling', async () => {
    const file = join(dir, 'events.db');
    const reader = new SqliteEventStore({ file, pollIntervalMs: 20 });
    const writer = new SqliteEventStore({ file });
    const sub = reader.subscribeToAll(null);
    const it = sub[Symbol.asyncIterator]();
    await writer.appendToStream('x-1', [ev('FromElsewhere')], 'no_stream');
    const next = await it.next();
    expect(next.value.type).toBe('FromElsewhere');
    await sub.close();
    await writer.close();
    await reader.close();
  });
});
