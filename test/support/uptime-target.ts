import { createServer, Server } from 'node:net';
import { Clock } from '../../libs/shared/clock';
import { UptimeWorker } from '../../libs/uptime/application/uptime.worker';
import { freePort } from './server-process';
import { startTestApp, TestApp } from './test-app';

/** A TCP server that accepts and closes every connection: the "up" port uptime checks connect to. */
export async function listeningUpTarget(host: string, port: number): Promise<Server> {
  const server = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen({ host, port }, resolve));
  return server;
}

export interface AppWithUpTarget {
  app: TestApp;
  /** The uptime worker with its timer stopped: a test runs its checks when it wants them. */
  worker: UptimeWorker;
  close(): Promise<void>;
}

/**
 * The test app checking a loopback "up" listener every 300 s (`env` on top), its uptime timer
 * stopped. The target is a loopback address, allowed here only (contract §16).
 */
export async function startAppWithUpTarget(clock: Clock, env: Record<string, string> = {}): Promise<AppWithUpTarget> {
  const checkPort = await freePort();
  const upServer = await listeningUpTarget('127.0.0.1', checkPort);
  const close = () => new Promise<void>((r) => upServer.close(() => r()));
  try {
    const app = await startTestApp({
      clock,
      env: {
        UPTIME_INTERVAL_SECONDS: '300',
        UPTIME_CHECK_PORTS: String(checkPort),
        ALLOW_PRIVATE_TARGETS: 'true',
        ...env,
      },
    });
    const worker = app.running.app.get(UptimeWorker);
    worker.stopTimer();
    return { app, worker, close: async () => (await app.close(), await close()) };
  } catch (e) {
    await close();
    throw e;
  }
}
