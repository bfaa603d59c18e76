import { validationFailed } from '../../shared/errors';
import { MAX_TTL, MIN_TTL, RRsetInput } from './rrsets';

/**
 * A BIND master file (RFC 1035 §5) turned into RRsets of one zone. Written here rather
 * than taken from npm: the one maintained parser (`dns-zonefile` 0.3) is ESM-only and
 * gives an owner-less line the apex instead of the previous owner (RFC 1035 §5.1).
 *
 * Handles $ORIGIN, $TTL, `@`, relative and absolute names, blank owners, TTL and class
 * in either order, TTL units (1h30m), parentheses across lines, quoted strings and `;`
 * comments outside quotes. The SOA and apex NS are skipped: the service generates them
 * from NAMESERVERS. Record data is handed on as text, for the same rdata validation as
 * the records API; relative names inside CNAME/NS/MX/SRV data are made absolute here.
 */
export interface MasterFileOptions {
  zone: string;
  defaultTtl: number;
}

const MAX_LINES = 50_000;
// Which rdata field is a domain name, per type (0-based): the ones relative names can appear in.
const NAME_FIELD: Record<string, number> = { CNAME: 0, NS: 0, MX: 1, SRV: 3, PTR: 0, NAPTR: 5, SVCB: 1, HTTPS: 1 };
const CLASSES = new Set(['IN', 'CH', 'HS', 'CS']);

interface Token {
  text: string;
  quoted: boolean;
}

interface Entry {
  line: number;
  startsBlank: boolean;
  tokens: Token[];
}

export function parseMasterFile(text: string, options: MasterFileOptions): RRsetInput[] {
  const zone = options.zone;
  let origin = zone;
  let ttlDefault: number | null = null;
  let lastOwner: string | null = null;
  let lastTtl: number | null = null;
  const rrsets = new Map<string, RRsetInput>();

  for (const entry of entries(text)) {
    const fail = (msg: string) => validationFailed(`zone_file: line ${entry.line}: ${msg}`);
    const tokens = [...entry.tokens];
    const first = tokens[0];
    if (!first.quoted && first.text.startsWith('$')) {
      const directive = first.text.toUpperCase();
      if (directive === '$ORIGIN' && tokens.length >= 2) origin = absoluteName(tokens[1].text, origin, fail);
      else if (directive === '$TTL' && tokens.length >= 2) ttlDefault = ttlValue(tokens[1].text, fail);
      else throw fail(`${first.text} is not supported`);
      continue;
    }
    let owner: string;
    if (entry.startsBlank) {
      if (lastOwner === null) throw fail('a record without an owner name before any owner');
      owner = lastOwner;
    } else {
      owner = absoluteName(tokens.shift()!.text, origin, fail);
    }
    lastOwner = owner;
    let ttl: number | null = null;
    // TTL and class may come in either order before the type.
    for (let i = 0; i < 2 && tokens.length > 0; i++) {
      const t = tokens[0].text;
      if (CLASSES.has(t.toUpperCase())) {
        if (t.toUpperCase() !== 'IN') throw fail(`class ${t} is not served`);
        tokens.shift();
      } else if (/^\d/.test(t)) {
        ttl = ttlValue(t, fail);
        tokens.shift();
      }
    }
    const typeToken = tokens.shift();
    if (!typeToken) throw fail('no record type');
    const type = typeToken.text.toUpperCase();
    const recordTtl: number = ttl ?? ttlDefault ?? lastTtl ?? options.defaultTtl;
    lastTtl = recordTtl;
    if (owner !== zone && !owner.endsWith(`.${zone}`)) throw fail(`${owner} is outside the zone ${zone}`);
    const subname = owner === zone ? '' : owner.slice(0, -(zone.length + 1));
    if (type === 'SOA' || (type === 'NS' && subname === '')) continue;
    const nameField = NAME_FIELD[type];
    const data = tokens.map((t, i) =>
      t.quoted ? t.text : i === nameField ? `${absoluteName(t.text, origin, fail)}.` : t.text,
    );
    const key = `${subname}|${type}`;
    const rrset = rrsets.get(key) ?? { subname, type, ttl: clampTtl(recordTtl), records: [] };
    rrset.records.push(data.join(' '));
    rrsets.set(key, rrset);
  }
  return [...rrsets.values()];
}

/** TTLs outside the API's 60-86400 are clamped rather than refused: real files carry 30 s or 1 w. */
const clampTtl = (ttl: number) => Math.min(MAX_TTL, Math.max(MIN_TTL, ttl));

function ttlValue(text: string, fail: (m: string) => Error): number {
  if (/^\d+$/.test(text)) return Number(text);
  const units: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400, w: 604800 };
  if (!/^(\d+[smhdw])+$/i.test(text)) throw fail(`"${text}" is not a TTL`);
  let total = 0;
  for (const [, n, u] of text.toLowerCase().matchAll(/(\d+)([smhdw])/g)) total += Number(n) * units[u];
  return total;
}

function absoluteName(text: string, origin: string, fail: (m: string) => Error): string {
  if (text === '@') return origin;
  if (text.includes('\\')) throw fail(`escaped names are not supported ("${text}")`);
  const lower = text.toLowerCase();
  if (lower.endsWith('.')) return lower.slice(0, -1);
  return origin ? `${lower}.${origin}` : lower;
}

/** Splits the file into logical entries (parentheses joined), keeping quoted strings and escapes intact. */
function* entries(text: string): Generator<Entry> {
  const lines = text.split(/\r?\n/);
  if (lines.length > MAX_LINES) throw validationFailed(`zone_file: more than ${MAX_LINES} lines`);
  let current: Entry | null = null;
  let depth = 0;
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n];
    if (depth === 0) current = { line: n + 1, startsBlank: /^[ \t]/.test(line), tokens: [] };
    let at = 0;
    while (at < line.length) {
      const c = line[at];
      if (c === ';') break;
      if (c === ' ' || c === '\t') {
        at++;
      } else if (c === '(') {
        depth++;
        at++;
      } else if (c === ')') {
        if (depth === 0) throw validationFailed(`zone_file: line ${n + 1}: unbalanced ")"`);
        depth--;
        at++;
      } else if (c === '"') {
        let end = at + 1;
        while (end < line.length && line[end] !== '"') end += line[end] === '\\' ? 2 : 1;
        if (end >= line.length) throw validationFailed(`zone_file: line ${n + 1}: unterminated quoted string`);
        current!.tokens.push({ text: line.slice(at, end + 1), quoted: true });
        at = end + 1;
      } else {
        let end = at;
        while (end < line.length && !' \t;()"'.includes(line[end])) end += line[end] === '\\' ? 2 : 1;
        current!.tokens.push({ text: line.slice(at, end), quoted: false });
        at = end;
      }
    }
    if (depth === 0 && current && current.tokens.length > 0) yield current;
  }
  if (depth !== 0) throw validationFailed('zone_file: unbalanced "(" at the end of the file');
}
