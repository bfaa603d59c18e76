import { EventStreams } from '../../eventstore/event-streams';
import { SqliteEventStore } from '../../eventstore/sqlite/sqlite-event-store';
import { ProjectionEngine } from '../../projection-engine/projection-engine';
import { AppError } from '../../shared/errors';
import { loadConfig } from '../../shared/config';
import { OverlapAllowances } from '../domain/zone-ownership';
import { ZoneOwnership } from './zone-ownership';

const meta = { actor: 'test', source_ip: '127.0.0.1' };

/**
 * The claim tree under the worst race: both imports see no reservation and no read-model
 * document of the other (the checks for zones imported before the tree), and every append
 * waits a turn so both decide before either writes. Two EventStreams over one store stand
 * for two API processes.
 */
describe('ZoneOwnership claims under a race', () => {
  let store: SqliteEventStore;
  let bob: ZoneOwnership;
  let carol: ZoneOwnership;

  beforeEach(() => {
    store = new SqliteEventStore({ file: ':memory:' });
    const append = store.appendToStream.bind(store);
    jest.spyOn(store, 'appendToStream').mockImplementation(async (...args) => {
      await new Promise((r) => setImmediate(r));
      return append(...args);
    });
    const nothingProjected = {
      readModel: () => ({ find: async () => [] }),
      waitFor: async () => true,
    } as unknown as ProjectionEngine;
    const config = loadConfig({ DATA_DIR: '/tmp/unused' });
    const clock = { now: () => new Date() };
    bob = new ZoneOwnership(new EventStreams(store), nothingProjected, config, clock);
    carol = new ZoneOwnership(new EventStreams(store), nothingProjected, config, clock);
  });
  afterEach(() => store.close());

  const noHolder = async () => null;
  const outcome = (p: Promise<void>) =>
    p.then(
      () => 'won',
      (e: unknown) => (e instanceof AppError ? e.code : String(e)),
    );

  it('lets exactly one of a parent and a child of two accounts win, and the loser hears zone_conflict', async () => {
    for (let i = 0; i < 20; i++) {
      const parent = `p${i}.test`;
      const results = await Promise.all([
        outcome(bob.claim(parent, `bob-${i}`, 1, new OverlapAllowances(), noHolder, meta)),
        outcome(carol.claim(`c.${parent}`, `carol-${i}`, 2, new OverlapAllowances(), noHolder, meta)),
      ]);
      expect(results.filter((r) => r === 'won').length).toBe(1);
      expect(results.every((r) => r === 'won' || r === 'zone_conflict')).toBe(true);
    }
  });

  it('lets the same account claim both at once (a delegation inside the account)', async () => {
    const results = await Promise.all([
      outcome(bob.claim('same.test', 'z1', 1, new OverlapAllowances(), noHolder, meta)),
      outcome(bob.claim('c.same.test', 'z2', 1, new OverlapAllowances(), noHolder, meta)),
    ]);
    expect(results).toEqual(['won', 'won']);
  });
});
