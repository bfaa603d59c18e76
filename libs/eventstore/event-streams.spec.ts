import { Decider, DomainEvent } from '../shared/decider';
import { conflict } from '../shared/errors';
import { EventStreams } from './event-streams';
import { SqliteEventStore } from './sqlite/sqlite-event-store';

/** A counter that refuses to go past a limit: enough to tell stale from fresh state. */
type Counter = { value: number };
type Set_ = DomainEvent<'Set', { value: number }>;
type Command = { type: 'Set'; value: number; limit?: number };
const counter: Decider<Counter, Command, Set_> = {
  initialState: () => ({ value: 0 }),
  evolve: (_s, e) => ({ value: e.data.value }),
  decide: (cmd, s) => {
    if (cmd.limit !== undefined && s.value >= cmd.limit) throw conflict('limit', 'limit reached');
    return s.value === cmd.value ? [] : [{ type: 'Set', data: { value: cmd.value } }];
  },
};
const meta = { actor: 'test', source_ip: '127.0.0.1' };

/** Two EventStreams over one store stand for two processes, each with its own state cache. */
describe('EventStreams state cache', () => {
  let store: SqliteEventStore;
  let a: EventStreams;
  let b: EventStreams;

  beforeEach(() => {
    store = new SqliteEventStore({ file: ':memory:' });
    a = new EventStreams(store);
    b = new EventStreams(store);
  });
  afterEach(() => store.close());

  it('decides on the cached state without reading the stream when nobody else wrote', async () => {
    await a.handle('c-1', counter, { type: 'Set', value: 1 }, meta);
    const reads = jest.spyOn(store, 'readStream');
    const result = await a.handle('c-1', counter, { type: 'Set', value: 2 }, meta);
    expect(result.state).toEqual({ value: 2 });
    expect(result.revision).toBe(1);
    expect(reads).not.toHaveBeenCalled();
  });

  it('re-decides on the fresh stream when another writer appended since the cache (append conflict)', async () => {
    await a.handle('c-1', counter, { type: 'Set', value: 1 }, meta);
    await b.handle('c-1', counter, { type: 'Set', value: 5 }, meta);
    const result = await a.handle('c-1', counter, { type: 'Set', value: 7 }, meta);
    expect(result.revision).toBe(2);
    expect((await store.readStream('c-1')).map((e) => e.data)).toEqual([{ value: 1 }, { value: 5 }, { value: 7 }]);
  });

  it('confirms a no-op decided on a stale cache against the stream', async () => {
    await a.handle('c-1', counter, { type: 'Set', value: 1 }, meta);
    await b.handle('c-1', counter, { type: 'Set', value: 5 }, meta);
    // A's cache says 1 already, which is stale: the change to 1 must still be appended.
    const result = await a.handle('c-1', counter, { type: 'Set', value: 1 }, meta);
    expect(result.events).toHaveLength(1);
    expect(result.state).toEqual({ value: 1 });
  });

  it('confirms a refusal decided on a stale cache against the stream', async () => {
    await a.handle('c-1', counter, { type: 'Set', value: 3 }, meta);
    await b.handle('c-1', counter, { type: 'Set', value: 0 }, meta);
    // A's cache says 3, at the limit; the stream says 0, below it.
    const result = await a.handle('c-1', counter, { type: 'Set', value: 2, limit: 3 }, meta);
    expect(result.state).toEqual({ value: 2 });
    await expect(a.handle('c-1', counter, { type: 'Set', value: 4, limit: 2 }, meta)).rejects.toMatchObject({
      code: 'limit',
    });
  });
});
