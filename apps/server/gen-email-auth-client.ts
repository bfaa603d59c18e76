import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadConfig } from '../../libs/shared/config';
import { jsonLogger } from '../../libs/shared/logger';
import { EMAIL_AUTH_OPENAPI_PATH } from '../../libs/email-auth-api/http/openapi';
import { createApp } from './app';

/** Where the generated client types live (checked in; test/email-auth-client.e2e-spec.ts checks they are current). */
export const EMAIL_AUTH_CLIENT_TYPES = 'test/generated/email-auth-api.d.ts';

/**
 * Types for the email-auth read API's client from the live document: starts the service
 * (API role, throwaway DATA_DIR, no DNS or SMTP listener), runs openapi-typescript on its
 * /api/v1/openapi.json over HTTP, and stops it. `npm run gen:email-auth-client`.
 */
export async function generateEmailAuthClientTypes(documentUrl: string, outFile: string): Promise<void> {
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
    await generateEmailAuthClientTypes(
      `http://127.0.0.1:${port}${EMAIL_AUTH_OPENAPI_PATH}`,
      resolve(process.argv[2] ?? EMAIL_AUTH_CLIENT_TYPES),
    );
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
