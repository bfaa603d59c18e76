import { SqliteCoordination } from '../consumers/sqlite-coordination';
import { EmbeddedReadStore } from '../readstore/embedded/embedded-read-store';
import { PositionPublisher } from './position-publisher';

describe('PositionPublisher', () => {
  let coordination: SqliteCoordination;
  let reads: EmbeddedReadStore;
  let rounds: Array<Map<string, string | null>>;
  /** Writes still pending in the read store when each round wrote its positions. */
  let pendingAtRound: number[];

  beforeEach(() => {
    coordination = new SqliteCoordination(':memory:');
    reads = new EmbeddedReadStore({ file: ':memory:', writer: 'inline', flushIntervalMs: 5 });
    rounds = [];
    pendingAtRound = [];
    const save = coordination.savePositions.bind(coordination);
    coordination.savePositions = async (positions) => {
      rounds.push(new Map(positions));
      pendingAtRound.push(reads.pendingWrites().count);
      await save(positions);
    };
  });

  afterEach(async () => {
    await reads.close();
    await coordination.close();
  });

  const settled = () => new Promise((r) => setTimeout(r, 60));

  it('writes the positions of every runner that asked in one round, as read when the round starts', async () => {
    const publisher = new PositionPublisher(reads, coordination, 5);
    let a = '1/1';
    publisher.request('projection:a', () => a);
    publisher.request('projection:b', () => '2/2');
    a = '3/3';
    await settled();
    expect(rounds).toEqual([
      new Map([
        ['projection:a', '3/3'],
        ['projection:b', '2/2'],
      ]),
    ]);
    expect(await coordination.positions(['projection:a', 'projection:b'])).toEqual(
      new Map([
        ['projection:a', '3/3'],
        ['projection:b', '2/2'],
      ]),
    );
  });

  it('publishes only once the read store has committed what was written before the round', async () => {
    const publisher = new PositionPublisher(reads, coordination, 1);
    await reads.collection('docs').insertOne({ _id: 'x', n: 1 });
    expect(reads.pendingWrites().count).toBe(1);
    publisher.request('projection:a', () => '5/5');
    await settled();
    expect(rounds).toHaveLength(1);
    expect(pendingAtRound).toEqual([0]);
  });

  it('keeps one round in flight: asks made meanwhile go out together in the next round', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => (release = r));
    const committed = reads.committed.bind(reads);
    let calls = 0;
    reads.committed = () => (calls++ === 0 ? held : committed());
    const publisher = new PositionPublisher(reads, coordination, 1);
    publisher.request('projection:a', () => '1/1');
    await new Promise((r) => setTimeout(r, 10));
    publisher.request('projection:a', () => '2/2');
    publisher.request('projection:b', () => '2/2');
    await new Promise((r) => setTimeout(r, 10));
    expect(rounds).toHaveLength(0);
    release();
    await settled();
    expect(rounds).toEqual([
      new Map([['projection:a', '1/1']]),
      new Map([
        ['projection:a', '2/2'],
        ['projection:b', '2/2'],
      ]),
    ]);
  });

  it('forget drops a pending ask and waits for the round in flight', async () => {
    const publisher = new PositionPublisher(reads, coordination, 20);
    publisher.request('projection:a', () => '1/1');
    await publisher.forget('projection:a');
    await settled();
    expect(rounds).toHaveLength(0);
  });
});
