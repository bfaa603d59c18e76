// Jest's node environment, closing at the end of each suite what test support registered and the
// suite left open (test/support/suite-resources.ts says when that happens). Plain JS: Jest loads
// the environment before any transform.
const { TestEnvironment } = require('jest-environment-node');

/** How long teardown waits for starts still under way (a timed-out beforeAll's app) before closing. */
const START_WAIT_MS = 60_000;

class ClosingEnvironment extends TestEnvironment {
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
  }
}

module.exports = ClosingEnvironment;
