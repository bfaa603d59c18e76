import { redact } from './redact';

/** Structured JSON logs, one line per entry; values pass through `redact` so no secret reaches a log. */
export interface Logger {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

export const LOGGER = Symbol('LOGGER');

export function jsonLogger(stream: NodeJS.WritableStream = process.stdout, enabled = true): Logger {
  const write = (level: string, msg: string, fields?: Record<string, unknown>) => {
    if (!enabled) return;
    stream.write(
      JSON.stringify({ time: new Date().toISOString(), level, msg, ...(fields ? redact(fields) : {}) }) + '\n',
    );
  };
  return {
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
  };
}
