/**
 * What the HTTP layer's per-request hooks cost on the event loop, apart from any route's own work
 * (issue 28, decision 0123). A Fastify server in a child process answers a DDNS-shaped request
 * (GET /domains/nic/update with a query and Basic credentials, a short text answer) with the
 * hooks the service installs (`apps/server/app.ts`): middie (Nest's adapter registers it), the
 * request context (request id header, command origin, metrics; the request log off, production's
 * default), the security headers, the cookie plugin; all of them, each left out in turn, none. The figure is the server's main-thread CPU per request
 * (/proc/<pid>/task/<pid>/stat), rounds alternating between the variants.
 *
 *   env: HTTP_HOOKS_BENCH_REQUESTS (60000 per round), HTTP_HOOKS_BENCH_ROUNDS (3),
 *        HTTP_HOOKS_BENCH_CONCURRENCY (64)
 */
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import fastifyCookie from '@fastify/cookie';
import fastifyMiddie from '@fastify/middie';
import Fastify from 'fastify';
import { Pool } from 'undici';
import { installSecurityHeaders } from '../libs/dashboard/security-headers';
import { installRequestContext, requestIdFor } from '../libs/shared/http/request-context';
import { Logger } from '../libs/shared/logger';
import { Metrics } from '../libs/shared/metrics';

const REQUESTS = Number(process.env.HTTP_HOOKS_BENCH_REQUESTS ?? 60_000);
const ROUNDS = Number(process.env.HTTP_HOOKS_BENCH_ROUNDS ?? 3);
const CONCURRENCY = Number(process.env.HTTP_HOOKS_BENCH_CONCURRENCY ?? 64);
const PATH = '/domains/nic/update?hostname=h1.bench.example.net&myip=192.0.2.7';
const AUTH = `Basic ${Buffer.from('bench:ads_0123456789abcdef0123456789abcdef').toString('base64')}`;

/** All the layers, then each left out in turn (its marginal cost), then none. */
const LAYERS = ['middie', 'request context', 'security headers', 'cookie'] as const;
const VARIANTS = ['all', ...LAYERS.map((l) => `without ${l}`), 'none'];
type Variant = string;

const silent: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };

async function serve(variant: Variant): Promise<void> {
  const on = (layer: (typeof LAYERS)[number]) =>
    variant === 'all' || (variant !== 'none' && variant !== `without ${layer}`);
  const fastify = Fastify({ genReqId: requestIdFor, logger: false, routerOptions: { ignoreTrailingSlash: true } });
  if (on('middie')) await fastify.register(fastifyMiddie);
  if (on('request context')) installRequestContext(fastify, silent, new Metrics(), false);
  if (on('security headers'))
    installSecurityHeaders(fastify, { contentSecurityPolicy: false, frameguard: { action: 'deny' } });
  if (on('cookie')) await fastify.register(fastifyCookie);
  // The DDNS routes state their origin themselves (`ExplicitOrigin`), as here.
  fastify.get('/domains/nic/update', { config: { explicitOrigin: true } }, (req, reply) => {
    const query = req.query as { myip?: string };
    void reply.code(200).header('content-type', 'text/plain; charset=utf-8').send(`nochg ${query.myip}`);
  });
  await fastify.listen({ port: 0, host: '127.0.0.1' });
  process.send!({ port: (fastify.server.address() as AddressInfo).port });
}

const mainThreadCpuSeconds = (pid: number): number => {
  const fields = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
};

async function start(variant: Variant): Promise<{ child: ChildProcess; port: number }> {
  const child = fork(__filename, ['serve', variant], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m) => resolve((m as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
  return { child, port };
}

async function load(pool: Pool, requests: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next++ < requests) {
      const res = await pool.request({ method: 'GET', path: PATH, headers: { authorization: AUTH } });
      await res.body.text();
      if (res.statusCode !== 200) throw new Error(`status ${res.statusCode}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

async function measure(variant: Variant): Promise<number> {
  const { child, port } = await start(variant);
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections: CONCURRENCY, pipelining: 1 });
  try {
    await load(pool, REQUESTS / 4); // warm-up: connections open, code optimised
    const before = mainThreadCpuSeconds(child.pid!);
    await load(pool, REQUESTS);
    return ((mainThreadCpuSeconds(child.pid!) - before) * 1e6) / REQUESTS;
  } finally {
    await pool.close();
    child.kill();
  }
}

async function main(): Promise<void> {
  const results = new Map<Variant, number[]>(VARIANTS.map((v) => [v, []]));
  for (let round = 1; round <= ROUNDS; round++) {
    for (const variant of VARIANTS) results.get(variant)!.push(await measure(variant));
    console.log(`round ${round}: ${VARIANTS.map((v) => `${v} ${results.get(v)!.at(-1)!.toFixed(1)}`).join(', ')} us`);
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(`\nmain-thread CPU per request, us (median of ${ROUNDS} rounds, ${REQUESTS} requests each):`);
  const all = median(results.get('all')!);
  for (const variant of VARIANTS) {
    const us = median(results.get(variant)!);
    const step = variant === 'all' ? '' : ` (the layers it lacks: ${(all - us).toFixed(1)})`;
    console.log(`  ${variant.padEnd(26)} ${us.toFixed(1)}${step}`);
  }
}

if (process.argv[2] === 'serve') void serve(process.argv[3] as Variant);
else
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
