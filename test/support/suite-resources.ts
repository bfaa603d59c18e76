/**
 * What a suite has started and not yet stopped. A `beforeAll` that times out keeps running after
 * the suite's `afterAll` hooks (Jest does not cancel it), so the app it goes on to start is closed
 * by nobody and keeps the jest worker alive ("A worker process has failed to exit gracefully").
 * Test support registers starts and open resources here; the suites' environment
 * (test/support/closing-environment.js) waits for starts still under way and closes what is left.
 */
interface SuiteResources {
  starting: Set<Promise<unknown>>;
  open: Set<() => Promise<unknown>>;
}

const resources = (): SuiteResources =>
  ((globalThis as { __suiteResources?: SuiteResources }).__suiteResources ??= { starting: new Set(), open: new Set() });

/** `start`, known to the environment while it runs. */
export function starting<T>(start: Promise<T>): Promise<T> {
  const { starting } = resources();
  starting.add(start);
  const settled = () => starting.delete(start);
  start.then(settled, settled);
  return start;
}

/** Registers `close` until the suite calls the answered function (its own close did the work). */
export function openUntilClosed(close: () => Promise<unknown>): () => void {
  const { open } = resources();
  open.add(close);
  return () => open.delete(close);
}
