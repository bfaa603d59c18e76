// Jest's node environment, closing at the end of each suite what test support registered and the
// suite left open (test/support/suite-resources.ts says when that happens). Plain JS: Jest loads
// the environment before any transform.
const { TestEnvironment } = require('jest-environment-node');

/** How long teardown waits for starts still under way (a timed-out beforeAll's app) before closing. */
const START_WAIT_MS = 60_000;

/**
 * JEST_LIST_HANDLES=1: after each suite, what still keeps the worker alive 300 ms later (jest
 * force-exits a worker that has not exited 500 ms after its last suite), on stderr. Stdio and the
 * IPC channel are left out.
 */
async function listHandles(file) {
  await new Promise((resolve) => setTimeout(resolve, 300));
  // Timers are not handles since Node 11: the resource list names them (without detail).
  const resources = process.getActiveResourcesInfo().filter((r) => !['PipeWrap', 'TTYWrap'].includes(r));
  const sockets = process
    ._getActiveHandles()
    .filter((h) => ['Server', 'Socket'].includes(h?.constructor?.name))
    .filter((h) => !(h === process.stdout || h === process.stderr))
    .map((h) => `${h.constructor.name} ${JSON.stringify(h.address?.() ?? null)}`);
  if (resources.length)
    process.stderr.write(
      `open after ${file}: ${resources.join(', ')}${sockets.length ? `; ${sockets.join(', ')}` : ''}\n`,
    );
}

class ClosingEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.testPath = context.testPath;
  }

  async teardown() {
    const resources = this.global.__suiteResources;
    if (resources) {
      let timer;
      const waited = new Promise((resolve) => (timer = setTimeout(resolve, START_WAIT_MS)));
      await Promise.race([Promise.allSettled([...resources.starting]), waited]);
      clearTimeout(timer);
      for (const close of [...resources.open]) {
        resources.open.delete(close);
        await close().catch(() => undefined);
      }
    }
    await super.teardown();
    if (process.env.JEST_LIST_HANDLES === '1') await listHandles(this.testPath);
  }
}

module.exports = ClosingEnvironment;
