import fastifyCookie from '@fastify/cookie';
import fastifyHelmet from '@fastify/helmet';
import fastifyStatic from '@fastify/static';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply } from 'fastify';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppError } from '../shared/errors';

/** Where `npm run build` puts the dashboard: dist/dashboard, seen from dist/libs/dashboard or from the sources. */
export function dashboardDir(): string | null {
  const candidates = [join(__dirname, '..', '..', 'dashboard'), join(__dirname, '..', '..', 'dist', 'dashboard')];
  return candidates.find((dir) => existsSync(join(dir, 'index.html'))) ?? null;
}

/**
 * Strict CSP for the dashboard: only the service's own scripts, styles and API; images may
 * be data URLs (the 2FA QR code). No inline script or style, no framing, no plugins.
 * `upgrade-insecure-requests` is off because a local `npm start` serves plain HTTP.
 */
const CONTENT_SECURITY_POLICY = {
  useDefaults: false,
  directives: {
    defaultSrc: ["'self'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'"],
    imgSrc: ["'self'", 'data:'],
    connectSrc: ["'self'"],
    fontSrc: ["'self'"],
    objectSrc: ["'none'"],
    baseUri: ["'none'"],
    formAction: ["'self'"],
    frameAncestors: ["'none'"],
  },
};

/**
 * The browser-facing part of the HTTP server: cookies (the dashboard's session), security
 * headers on every response, and the dashboard itself under `/app/` for the `api` role
 * (contract §14). API paths are untouched; `/app/*` client routes all serve index.html.
 */
export async function installWebFront(app: NestFastifyApplication, serveDashboard: boolean): Promise<void> {
  await app.register(fastifyCookie as never);
  await app.register(fastifyHelmet as never, { contentSecurityPolicy: CONTENT_SECURITY_POLICY } as never);
  if (!serveDashboard) return;
  const fastify = app.getHttpAdapter().getInstance();
  const dir = dashboardDir();
  fastify.get('/', (_req, reply) => reply.redirect('/app/', 302));
  if (!dir) {
    const missing = new AppError(503, 'dashboard_not_built', 'The dashboard is not built: run `npm run build`');
    fastify.get('/app', (_req, reply) => reply.code(503).send(missing.toBody()));
    fastify.get('/app/*', (_req, reply) => reply.code(503).send(missing.toBody()));
    return;
  }
  // Hashed file names never change content: cache them for a year; index.html is revalidated.
  await app.register(fastifyStatic as never, {
    root: join(dir, 'assets'),
    prefix: '/app/assets/',
    decorateReply: false,
    immutable: true,
    maxAge: 365 * 24 * 3600 * 1000,
  } as never);
  const index = readFileSync(join(dir, 'index.html'));
  const sendIndex = (_req: unknown, reply: FastifyReply) =>
    reply.header('Cache-Control', 'no-cache').type('text/html; charset=utf-8').send(index);
  fastify.get('/app', sendIndex);
  fastify.get('/app/*', sendIndex);
}
