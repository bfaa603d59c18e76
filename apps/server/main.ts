import { loadConfig } from '../../libs/shared/config';
import { createApp } from './app';

async function main(): Promise<void> {
  const config = loadConfig();
  const running = await createApp(config);
  if (config.roles.includes('api')) {
    await running.app.listen({ port: config.port, host: config.host });
  }
  running.deps.logger.info('service started', {
    roles: config.roles,
    port: config.port,
    event_store: running.deps.eventStore.kind,
    read_store: running.deps.readStore.kind,
    data_dir: config.eventStoreUrl && config.mongodbUrl ? null : config.dataDir,
  });
  const stop = async (signal: string) => {
    running.deps.logger.info('shutting down', { signal });
    await running.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((e) => {
  process.stderr.write(JSON.stringify({ level: 'error', msg: 'startup failed', error: String(e?.stack ?? e) }) + '\n');
  process.exit(1);
});
