import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ADMIN_TOKEN } from './http-client';

const run = promisify(execFile);

export interface RawResponse {
  status: number;
  body: any;
}

/** POSTs raw bytes (a report file or a mail) over real HTTP. */
export async function postRaw(
  baseUrl: string,
  path: string,
  body: Uint8Array,
  contentType: string,
  admin = true,
): Promise<RawResponse> {
  const headers: Record<string, string> = { 'content-type': contentType };
  if (admin) headers['x-admin-token'] = ADMIN_TOKEN;
  const res = await fetch(baseUrl + path, { method: 'POST', headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* keep the text */
  }
  return { status: res.status, body: parsed };
}

/** The media type an operator would send a fixture as. */
export const mediaTypeOf = (file: string): string =>
  file.endsWith('.gz')
    ? 'application/gzip'
    : file.endsWith('.zip')
      ? 'application/zip'
      : file.endsWith('.eml')
        ? 'message/rfc822'
        : file.endsWith('.json')
          ? 'application/tlsrpt+json'
          : 'application/xml';

/**
 * Sends mail with `swaks` (Debian) to the intake's SMTP port: a whole message file, or
 * (`attach`) a message swaks builds around a file attached with the given media type.
 * Resolves with its exit code and transcript.
 */
export async function swaks(
  port: number,
  to: string,
  file: string,
  attach?: { type: string; name: string },
): Promise<{ code: number; transcript: string }> {
  const content = attach
    ? ['--attach-type', attach.type, '--attach-name', attach.name, '--attach', `@${file}`]
    : ['--data', `@${file}`];
  try {
    const { stdout, stderr } = await run(
      'swaks',
      [
        '--server',
        '127.0.0.1',
        '--port',
        String(port),
        '--to',
        to,
        '--from',
        'reports@reporter.example',
        ...content,
        '--timeout',
        '20',
      ],
      { timeout: 30_000 },
    );
    return { code: 0, transcript: stdout + stderr };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof err.code === 'number' ? err.code : -1, transcript: (err.stdout ?? '') + (err.stderr ?? '') };
  }
}
