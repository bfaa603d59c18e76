import type { FastifyInstance } from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet, { HelmetOptions } from 'helmet';

/**
 * The headers helmet sets for `options`, computed once. With a fixed configuration and no
 * CSP nonces they depend on nothing in the request, so every response gets the same set;
 * `@fastify/helmet` built a new helmet middleware chain (and ran two hooks, one async) for
 * every request instead, a few percent of the CPU of a small API answer.
 */
export function helmetHeaders(options: HelmetOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader: (name: string, value: string | number | readonly string[]) => {
      headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
    },
    removeHeader: (name: string) => {
      delete headers[name];
    },
  };
  let called = false;
  helmet(options)({} as IncomingMessage, recorder as unknown as ServerResponse, (error?: unknown) => {
    if (error) throw error;
    called = true;
  });
  // helmet runs its middlewares synchronously; anything else would mean headers depending on the request.
  if (!called) throw new Error('helmet did not finish synchronously');
  return headers;
}

/** Sets helmet's headers for `options` on every response of `fastify` (a callback hook: no promise per request). */
export function installSecurityHeaders(fastify: FastifyInstance, options: HelmetOptions): void {
  // Named in lower case once: Fastify lowercases every name it is given (and sends it so), a
  // new string per header per response otherwise.
  const headers = Object.fromEntries(Object.entries(helmetHeaders(options)).map(([k, v]) => [k.toLowerCase(), v]));
  fastify.addHook('onRequest', (_req, reply, done) => {
    void reply.headers(headers);
    done();
  });
}
