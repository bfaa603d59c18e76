import { KeyedLock } from './keyed-lock';

const tick = () => new Promise((r) => setImmediate(r));

describe('KeyedLock', () => {
  it('runs tasks of one key one after another, in arrival order, and those of other keys meanwhile', async () => {
    const lock = new KeyedLock();
    const log: string[] = [];
    const gates: Record<string, () => void> = {};
    const task = (name: string) => () =>
      new Promise<string>((resolve) => {
        log.push(`start ${name}`);
        gates[name] = () => {
          log.push(`end ${name}`);
          resolve(name);
        };
      });
    const a1 = lock.run('a', task('a1'));
    const a2 = lock.run('a', task('a2'));
    const b1 = lock.run('b', task('b1'));
    await tick();
    expect(log).toEqual(['start a1', 'start b1']);
    gates.a1();
    await expect(a1).resolves.toBe('a1');
    await tick();
    expect(log).toEqual(['start a1', 'start b1', 'end a1', 'start a2']);
    gates.b1();
    gates.a2();
    await expect(Promise.all([a2, b1])).resolves.toEqual(['a2', 'b1']);
  });

  it('runs the next task after a failed one, and hands each caller its own outcome', async () => {
    const lock = new KeyedLock();
    const failed = lock.run('k', () => Promise.reject(new Error('refused')));
    const thrown = lock.run('k', () => {
      throw new Error('thrown before any promise');
    });
    const next = lock.run('k', async () => 'ran');
    await expect(failed).rejects.toThrow('refused');
    await expect(thrown).rejects.toThrow('thrown before any promise');
    await expect(next).resolves.toBe('ran');
  });

  it('turns a task that throws at once into a rejection, with nothing before it', async () => {
    const lock = new KeyedLock();
    const thrown = lock.run('k', () => {
      throw new Error('at once');
    });
    await expect(thrown).rejects.toThrow('at once');
    await expect(lock.run('k', async () => 1)).resolves.toBe(1);
  });

  it('forgets a key once nothing runs or waits under it', async () => {
    const lock = new KeyedLock();
    await Promise.all([lock.run('a', async () => 1), lock.run('a', async () => 2), lock.run('b', async () => 3)]);
    await tick();
    expect((lock as unknown as { tails: Map<string, unknown> }).tails.size).toBe(0);
  });
});
