/**
 * The baseline of the email-auth API bench: a bare Fastify server (the framework the
 * service runs on) with one hello route (and a fixed page-sized JSON body for reference), in its own process like the service. Prints its
 * port on stdout once listening.
 */
import Fastify from 'fastify';

async function main(): Promise<void> {
  const app = Fastify({ logger: false });
  app.get('/hello', async () => ({ hello: 'world' }));
  // A JSON body the size of a row page (BARE_PAGE_BYTES), already serialised: what sending
  // that many bytes costs the framework and the load generator, with no work behind it.
  const page = JSON.stringify({ data: 'x'.repeat(Math.max(0, Number(process.env.BARE_PAGE_BYTES ?? 0) - 11)) });
  app.get('/page', (_req, reply) => {
    void reply.header('content-type', 'application/json; charset=utf-8').send(page);
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address() as { port: number };
  process.stdout.write(`${address.port}\n`);
  process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
}

void main();
