import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { parse as parseForm } from 'node:querystring';
import { validationFailed } from '../errors';

/** JSON bodies nested deeper than this (arrays and objects) are refused (contract §16). */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether JSON text nests arrays and objects deeper than `limit`: one pass over the text,
 * strings skipped, no recursion, so it is safe on any input and runs before the parser
 * and everything after it (prototype-poisoning scan, class-transformer, class-validator),
 * which recurse per level and overflow the stack thousands of levels down.
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // A string: up to its closing quote, escapes skipped.
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i++;
        else if (d === 0x22) break;
      }
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return false;
}

/** In `u` mode a surrogate pair is one code point: what matches is a lone surrogate. */
const LONE_SURROGATE = /\p{Surrogate}/u;

/**
 * The path (`records[0].records[1]`) of the first string or field name in a parsed JSON
 * value that is not well-formed Unicode, or null. JSON's `\ud800` escapes make such
 * strings (raw bytes cannot: invalid UTF-8 decodes to U+FFFD), and they break whatever
 * later encodes them (encodeURIComponent's URIError, UTF-8 writers). Iterative: the value
 * is at most MAX_JSON_DEPTH deep, but nothing here needs to rely on it.
 */
export function illFormedTextAt(value: unknown): string | null {
  const stack: Array<[unknown, string]> = [[value, '']];
  while (stack.length > 0) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      if (LONE_SURROGATE.test(v)) return path || 'the request body';
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], `${path}[${i}]`]);
    } else if (v !== null && typeof v === 'object') {
      const entries = Object.entries(v);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i];
        if (LONE_SURROGATE.test(key)) return `${path ? `${path}.` : ''}${JSON.stringify(key)} (a field name)`;
        stack.push([child, path ? `${path}.${key}` : key]);
      }
    }
  }
  return null;
}

type Done = (error: Error | null, body?: unknown) => void;

/**
 * The request-body parsers, in place of Nest's (the app is created with `bodyParser:
 * false`): JSON, checked for depth before it is parsed and for ill-formed text after, and
 * URL-encoded forms (DDNS clients post them). Errors raised here reach the exception
 * filter like any other: 400 `validation_failed` naming the field.
 */
export function installBodyParsers(app: NestFastifyApplication, bodyLimit: number): void {
  const fastify = app.getHttpAdapter().getInstance();
  // secure-json-parse, refusing `__proto__` and `constructor.prototype` (Fastify's default).
  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  fastify.addContentTypeParser(
    'application/json',
    { parseAs: 'string', bodyLimit },
    (req, text: string, done: Done) => {
      if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
        done(validationFailed(`The request body is nested deeper than ${MAX_JSON_DEPTH} levels`));
        return;
      }
      parseJson(req, text, (error: Error | null, value?: unknown) => {
        if (error) return done(error);
        const at = illFormedTextAt(value);
        if (at !== null)
          return done(validationFailed(`${at} must be well-formed Unicode text (it holds a lone surrogate)`));
        done(null, value);
      });
    },
  );
  fastify.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit },
    (_req, text: string, done: Done) => {
      done(null, { ...parseForm(text) });
    },
  );
}
