import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadConfig } from '../../libs/shared/config';
import { jsonLogger } from '../../libs/shared/logger';
import { EMAIL_AUTH_OPENAPI_PATH } from '../../libs/email-auth-api/http/openapi';
import { createApp } from './app';
import { MANAGEMENT_OPENAPI_PATH } from './management-openapi';

/** Where the generated client types live (checked in; test/email-auth-client.e2e-spec.ts checks they are current). */
export const EMAIL_AUTH_CLIENT_TYPES = 'test/generated/email-auth-api.d.ts';

/**
 * The dashboard's types of the management API (checked in; test/management-openapi.e2e-spec.ts
 * checks they are current). The dashboard's typecheck runs in `npm run build`, so a server
 * change that breaks a screen fails the build.
 */
export const DASHBOARD_API_TYPES = 'apps/dashboard/src/api/generated/management-api.d.ts';

/**
 * Types from the live documents: starts the service (API role, throwaway DATA_DIR, no DNS
 * or SMTP listener), runs openapi-typescript on its /api/v1/openapi.json (the email-auth read
 * API's client) and /openapi.json (the dashboard) over HTTP, and stops it.
 * `npm run gen:api-types`.
 */
export async function generateApiTypes(documentUrl: string, outFile: string): Promise<void> {
  const cli = join(resolve(require.resolve('openapi-typescript'), '..', '..'), 'bin', 'cli.js');
  // Asynchronous: the service answering the generator runs in this same process.
  await promisify(execFile)(process.execPath, [cli, documentUrl, '--output', outFile]);
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'adns-gen-'));
  const config = loadConfig(
    {
      DATA_DIR: dataDir,
      ROLES: 'api',
      DNS_PORT: '0',
      SMTP_PORT: '0',
      SECRET_KEY: 'openapi-generation-only',
      LOG_REQUESTS: 'false',
    },
    { port: 0, host: '127.0.0.1' },
  );
  const running = await createApp(config, { logger: jsonLogger(process.stderr, false) });
  try {
    await running.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = running.app.getHttpServer().address() as { port: number };
    const base = `http://127.0.0.1:${port}`;
    await generateApiTypes(base + EMAIL_AUTH_OPENAPI_PATH, resolve(EMAIL_AUTH_CLIENT_TYPES));
    await generateApiTypes(base + MANAGEMENT_OPENAPI_PATH, resolve(DASHBOARD_API_TYPES));
  } finally {
    await running.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
