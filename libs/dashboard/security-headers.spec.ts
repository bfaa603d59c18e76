import Fastify, { FastifyInstance } from 'fastify';
import { createServer, request } from 'node:http';
import { connect } from 'node:net';
import helmet from 'helmet';
import { helmetHeaders, installSecurityHeaders } from './security-headers';

describe('helmetHeaders', () => {
  const options = { contentSecurityPolicy: false, frameguard: { action: 'deny' as const } };

  it('are the headers helmet itself sets on a real response, CSP left out and framing denied', async () => {
    const middleware = helmet(options);
    const server = createServer((req, res) => middleware(req, res, () => res.end()));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const sent = await new Promise<Record<string, unknown>>((resolve, reject) =>
      request({ port, host: '127.0.0.1', path: '/' }, (res) => {
        res.resume();
        resolve(res.headers);
      })
        .on('error', reject)
        .end(),
    );
    server.close();
    const computed = Object.fromEntries(Object.entries(helmetHeaders(options)).map(([k, v]) => [k.toLowerCase(), v]));
    for (const [name, value] of Object.entries(computed)) expect([name, sent[name]]).toEqual([name, value]);
    expect(computed['x-frame-options']).toBe('DENY');
    expect(computed['x-content-type-options']).toBe('nosniff');
    expect(computed['content-security-policy']).toBeUndefined();
    expect(Object.keys(computed).length).toBeGreaterThan(8);
  });

  it('go on the wire byte for byte as helmet names them would (Fastify sends every name in lower case)', async () => {
    /** The raw head of a response to GET /, without its Date line. */
    const rawHead = async (setUp: (app: FastifyInstance) => void): Promise<string> => {
      const app = Fastify();
      setUp(app);
      app.get('/', (_req, reply) => reply.header('content-type', 'text/plain; charset=utf-8').send('ok'));
      await app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = app.server.address() as { port: number };
      const raw = await new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () =>
          socket.end('GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
        );
        let text = '';
        socket.on('data', (d) => (text += d.toString('latin1')));
        socket.on('end', () => resolve(text));
        socket.on('error', reject);
      });
      await app.close();
      return raw.split('\r\n\r\n')[0].replace(/\r\ndate: [^\r]*/i, '');
    };
    const installed = await rawHead((app) => installSecurityHeaders(app, options));
    const asHelmetNames = await rawHead((app) =>
      app.addHook('onRequest', (_req, reply, done) => {
        void reply.headers(helmetHeaders(options));
        done();
      }),
    );
    expect(installed).toBe(asHelmetNames);
    expect(installed).toContain('\r\nx-frame-options: DENY\r\n');
  });
});
