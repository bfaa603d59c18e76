import { startTestApp } from './support/test-app';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const ClosingEnvironment = require('./support/closing-environment');

const environment = () =>
  new ClosingEnvironment(
    { projectConfig: { testEnvironmentOptions: {}, globals: {}, fakeTimers: {} }, globalConfig: {} },
    { console, docblockPragmas: {}, testPath: __filename },
  );

/**
 * A beforeAll that times out goes on running after the suite's afterAll: what it starts must not
 * keep the jest worker alive. The environment closes, at the suite's end, what test support
 * started and the suite left open, waiting for starts still under way.
 */
describe('the suites’ environment closes what a suite left open', () => {
  it('waits for a start under way, then closes it and whatever else is still open', async () => {
    const env = environment();
    const closed: string[] = [];
    let finishStart!: () => void;
    const start = new Promise<void>((resolve) => (finishStart = resolve)).then(() => {
      env.global.__suiteResources.open.add(async () => closed.push('late app'));
    });
    env.global.__suiteResources = {
      starting: new Set([start]),
      open: new Set([async () => closed.push('open app')]),
    };
    const teardown = env.teardown();
    setTimeout(finishStart, 50);
    await teardown;
    expect(closed).toEqual(['open app', 'late app']);
  });

  it('leaves alone what the suite closed itself (a real app, started and closed)', async () => {
    const app = await startTestApp();
    const resources = (globalThis as any).__suiteResources;
    expect(resources.open.size).toBe(1);
    expect(resources.starting.size).toBe(0);
    await app.close();
    expect(resources.open.size).toBe(0);
  });
});
