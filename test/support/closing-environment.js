// Jest's node environment, closing at the end of each suite what test support registered and the
// suite left open (test/support/suite-resources.ts says when that happens). Plain JS: Jest loads
// the environment before any transform.
const { TestEnvironment } = require('jest-environment-node');
const openHandles = require('./open-handles');

/** How long teardown waits for starts still under way (a timed-out beforeAll's app) before closing. */
const START_WAIT_MS = 60_000;

class ClosingEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.testPath = context.testPath;
  }

  async setup() {
    // JEST_OPEN_HANDLES=1: after each suite, what it left holding the worker and where it was made.
    if (process.env.JEST_OPEN_HANDLES) openHandles.track(this.testPath);
    await super.setup();
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
    if (process.env.JEST_OPEN_HANDLES) {
      const open = await openHandles.leftOpen(this.testPath);
      if (open.length) process.stderr.write(`left open by ${this.testPath}:\n  ${open.join('\n  ')}\n`);
    }
  }
}

module.exports = ClosingEnvironment;
