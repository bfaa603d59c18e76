/**
 * The baseline of the email-auth API bench: a bare Fastify server (the framework the
 * service runs on) with one hello route, in its own process like the service. Prints its
 * port on stdout once listening.
 */
import Fastify from 'fastify';

async function main(): Promise<void> {
  const app = Fastify({ logger: false });
  app.get('/hello', async () => ({ hello: 'world' }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address() as { port: number };
  process.stdout.write(`${address.port}\n`);
  process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
}

void main();
