import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { startTestApp } from './support/test-app';

/** V8's full collection, taken without exposing `gc` to the process (as libs/shared/young-collection.ts does). */
function fullCollection(): () => void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  setFlagsFromString('--no-expose-gc');
  return gc;
}

/**
 * A closed app leaves nothing in the process that holds it (decision 0101). prom-client's default
 * metrics used to: its GC observer and event-loop monitor, registered with Node itself, held every
 * app a jest worker had run until the worker ended (≈ 20 MB a suite, 1.4 GB by the end of a run, so
 * slow to exit that jest force-exited it).
 */
describe('a closed app', () => {
  /** Starts, uses and closes an app; answers a weak reference to it, so this test holds nothing else. */
  const startedAndClosed = async () => {
    const app = await startTestApp();
    expect((await app.http.get('/health')).status).toBe(200);
    const held = new WeakRef(app.running.app);
    await app.close(true);
    return held;
  };

  it('is garbage once closed: nothing in the process keeps it', async () => {
    const gc = fullCollection();
    const held = await startedAndClosed();
    // A WeakRef holds its target until the current job ends: collect on later turns.
    let collected = false;
    for (let turn = 0; turn < 5 && !collected; turn++) {
      await new Promise((resolve) => setImmediate(resolve));
      gc();
      collected = held.deref() === undefined;
    }
    expect(collected).toBe(true);
  });
});
