import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppOptions, createApp, RunningApp } from '../../apps/server/app';
import { AppConfig, loadConfig } from '../../libs/shared/config';
import { Clock, ManualClock } from '../../libs/shared/clock';
import { jsonLogger } from '../../libs/shared/logger';
import { ADMIN_TOKEN, HttpClient } from './http-client';
import { openUntilClosed, starting } from './suite-resources';

export { ADMIN_TOKEN, HttpClient, registerAndLogin } from './http-client';

export interface TestApp {
  url: string;
  running: RunningApp;
  dataDir: string;
  clock: Clock;
  http: HttpClient;
  /** Stops the app; keeps DATA_DIR unless `wipe`. */
  close(wipe?: boolean): Promise<void>;
}

export interface StartOptions {
  dataDir?: string;
  env?: Record<string, string>;
  clock?: Clock;
  config?: Partial<AppConfig>;
  modules?: AppOptions['modules'];
}

/** Starts the real Nest app on a random loopback port with a temp DATA_DIR (embedded stores). */
export async function startTestApp(options: StartOptions = {}): Promise<TestApp> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'adns-test-'));
  const config = loadConfig(
    {
      DATA_DIR: dataDir,
      ADMIN_TOKEN,
      SECRET_KEY: 'test-secret-key',
      LOG_REQUESTS: 'false',
      DNS_PORT: '0',
      SMTP_PORT: '0',
      ...options.env,
    },
    { port: 0, host: '127.0.0.1', ...options.config },
  );
  const clock = options.clock ?? new ManualClock(new Date());
  // Tests drive time explicitly only where they pass a clock; otherwise real time.
  const effectiveClock = options.clock ? clock : { now: () => new Date() };
  const running = await starting(
    createApp(config, { clock: effectiveClock, logger: jsonLogger(process.stdout, false), modules: options.modules }),
  );
  const forget = openUntilClosed(() => running.close());
  try {
    await starting(running.app.listen({ port: 0, host: '127.0.0.1' }));
  } catch (e) {
    forget();
    await running.close();
    throw e;
  }
  const address = running.app.getHttpServer().address() as { port: number };
  const url = `http://127.0.0.1:${address.port}`;
  return {
    url,
    running,
    dataDir,
    clock: effectiveClock,
    http: new HttpClient(url),
    async close(wipe = true) {
      forget();
      await running.close();
      if (wipe) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
