import fastifyCookie from '@fastify/cookie';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { AppError } from '../shared/errors';
import { installSecurityHeaders } from './security-headers';

/** Where `npm run build` puts the dashboard: dist/dashboard, seen from dist/libs/dashboard or from the sources. */
export function dashboardDir(): string | null {
  const candidates = [join(__dirname, '..', '..', 'dashboard'), join(__dirname, '..', '..', 'dist', 'dashboard')];
  return candidates.find((dir) => existsSync(join(dir, 'index.html'))) ?? null;
}

/**
 * Strict CSP for the dashboard: only the service's own scripts, styles and API; images may
 * be data URLs (the 2FA QR code). No inline script or style, no framing, no plugins.
 * `upgrade-insecure-requests` is left out because a local `npm start` serves plain HTTP.
 * It is sent with the dashboard's HTML, the document a browser enforces it on; JSON
 * responses render nothing, and other HTML (e.g. an API explorer) sets its own policy.
 */
export const DASHBOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The browser-facing part of the HTTP server: cookies (the dashboard's session), security
 * headers on every response (helmet), and the dashboard itself under `/app/` for the `api` role
 * (contract §14). API paths are untouched; `/app/*` client routes all serve index.html.
 */
export async function installWebFront(app: NestFastifyApplication, serveDashboard: boolean): Promise<void> {
  await app.register(fastifyCookie as never);
  // The usual headers on every response; the CSP goes with the dashboard's document below.
  const fastify = app.getHttpAdapter().getInstance();
  installSecurityHeaders(fastify, { contentSecurityPolicy: false, frameguard: { action: 'deny' } });
  if (!serveDashboard) return;
  const dir = dashboardDir();
  fastify.get('/', (_req, reply) => reply.redirect('/app/', 302));
  if (!dir) {
    const missing = new AppError(503, 'dashboard_not_built', 'The dashboard is not built: run `npm run build`');
    fastify.get('/app', (_req, reply) => reply.code(503).send(missing.toBody()));
    fastify.get('/app/*', (_req, reply) => reply.code(503).send(missing.toBody()));
    return;
  }
  const assets = loadAssets(join(dir, 'assets'));
  fastify.get('/app/assets/:file', (req: FastifyRequest<{ Params: { file: string } }>, reply) => {
    const asset = assets.get(req.params.file);
    if (!asset) return reply.code(404).send({ error: { code: 'not_found', message: 'No such file' } });
    // Hashed file names never change content: cached for a year.
    reply
      .header('Cache-Control', 'public, max-age=31536000, immutable')
      .header('Vary', 'Accept-Encoding')
      .type(asset.type);
    const gzip = /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
    return gzip ? reply.header('Content-Encoding', 'gzip').send(asset.gzip) : reply.send(asset.body);
  });
  const index = readFileSync(join(dir, 'index.html'));
  const sendIndex = (_req: unknown, reply: FastifyReply) =>
    reply
      .header('Cache-Control', 'no-cache')
      .header('Content-Security-Policy', DASHBOARD_CSP)
      .type('text/html; charset=utf-8')
      .send(index);
  fastify.get('/app', sendIndex);
  fastify.get('/app/*', sendIndex);
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

interface Asset {
  type: string;
  body: Buffer;
  gzip: Buffer;
}

/**
 * The build's assets, read once into memory and compressed once: a few hundred KB that
 * never change while the process runs. Requests look names up in this map, so no
 * request path ever reaches the file system.
 */
function loadAssets(dir: string): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  for (const name of readdirSync(dir)) {
    const type = TYPES[extname(name)];
    if (!type) continue;
    const body = readFileSync(join(dir, name));
    assets.set(name, { type, body, gzip: gzipSync(body, { level: 9 }) });
  }
  return assets;
}
