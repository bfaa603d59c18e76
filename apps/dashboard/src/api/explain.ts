import type { ApiError } from './client';

/**
 * The service's errors in words a user understands (issue 27, "Human errors"). A
 * validation answer names its fields in wire terms ("records[0].ttl: must be an integer
 * from 60 to 86400"); here each problem goes to the form field it concerns (by the field's
 * `name`, which is the API's field name) with a sentence that says what to type, and the
 * wire text stays available behind a details toggle. Different problems of one field get
 * different sentences (a malformed host name is not a name outside your zones).
 */
export interface Explained {
  /** Field name → what to do, for the fields a form shows beside its inputs. */
  fields: Record<string, string>;
  /** What is said above the form (problems of no field, or none mapped). */
  general: string | null;
  /** The service's own words, for the details toggle (null when `general` already is them). */
  wire: string | null;
}

const EXAMPLES: Record<string, string> = {
  A: '192.0.2.1',
  AAAA: '2001:db8::1',
  CNAME: 'target.example.com.',
  MX: '10 mail.example.com.',
  TXT: '"some text"',
  NS: 'ns1.example.net.',
  SRV: '10 5 443 host.example.com.',
  CAA: '0 issue "letsencrypt.org"',
};

/** A host name (LDH labels): what DDNS hosts take. */
const LDH = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\.?$/i;

/** `records[0].records[2]` → the form field (`records`) and the line it concerns (3). */
function fieldOf(path: string): { field: string; line: number | null } {
  const parts = path.split('.');
  const last = parts[parts.length - 1];
  const m = /^([a-z_]+)(?:\[(\d+)\])?/i.exec(last)!;
  return { field: m[1], line: m[2] !== undefined && parts.length > 1 ? Number(m[2]) + 1 : null };
}

/** One problem of a field, in words; `value` is what the user typed there, when known. */
function sentence(field: string, text: string, code: string, value: unknown, line: number | null): string {
  const v = typeof value === 'string' ? value.trim() : '';
  const at = line ? `Line ${line}: ` : '';
  let m: RegExpExecArray | null;
  if (code === 'invalid_fqdn' || (field === 'fqdn' && /host name/.test(text))) {
    return v && !LDH.test(v)
      ? 'Use letters, digits and hyphens in each part of the name, with dots between the parts; for example home.dyn.example.net.'
      : "The name must end in one of the service's DDNS zones (for example home.dyn.example.net) or in one of your verified zones.";
  }
  if (code === 'fqdn_taken') return 'This name is already in use. Choose another one.';
  if (code === 'username_taken') return 'This username is taken. Choose another one.';
  if (code === 'email_taken') return 'An account already uses this email address.';
  if ((m = /is an? ([\w\s()-]+?) address, which is not accepted/.exec(text))) {
    return `${v || 'This'} is a ${m[1].replace(/\s*\(.*\)/, '')} address, which the internet cannot reach. Enter the host's public address.`;
  }
  if (/must be an IPv4 address/.test(text))
    return 'Enter an IPv4 address, for example 203.0.113.7 (for an IPv6 address choose AAAA).';
  if (/must be an IPv6 address/.test(text)) return 'Enter an IPv6 address, for example 2001:db8::7.';
  if (/must be an IPv4 or IPv6 address/.test(text))
    return 'Enter an IPv4 address (for example 203.0.113.7) or an IPv6 address (for example 2001:db8::7).';
  if ((m = /invalid (\w+) record "([^"]*)"(?::\s*(.*))?/.exec(text))) {
    const example = EXAMPLES[m[1]];
    // The value, not a line number: an added record is sent beside those already there, so the index is not the line typed.
    return `"${m[2]}" is not a valid ${m[1]} record${m[3] ? ` (${m[3]})` : ''}.${example ? ` For example: ${example}` : ''}`;
  }
  if (/CNAME RRset holds exactly one record/.test(text)) return 'A CNAME points to exactly one name: keep one line.';
  if (/^label /.test(text) || /has characters other than letters/.test(text)) {
    return field === 'subname'
      ? 'Use letters, digits, hyphens and underscores, with dots between parts, or @ for the zone itself; for example www.'
      : 'Use letters, digits and hyphens in each part of the name, with dots between the parts; for example example.com.';
  }
  if ((m = /(?:integer|whole number of seconds) from (\d+) to (\d+)/.exec(text))) {
    return field === 'ttl'
      ? `Use a TTL from ${m[1]} to ${m[2]} seconds (one minute to one day).`
      : `${at}Use a whole number from ${m[1]} to ${m[2]}.`;
  }
  if (field === 'username' && /characters/.test(text))
    return 'Use 3 to 32 characters: lowercase letters, digits, _ and -; for example home_office.';
  if (/must be an email/.test(text)) return 'Enter an email address, for example you@example.com.';
  if ((m = /must be (\d+) to (\d+) characters/.exec(text))) {
    return /password/.test(field)
      ? `Use at least ${m[1]} characters (at most ${m[2]}). A few unrelated words make a good password.`
      : `Use ${m[1]} to ${m[2]} characters.`;
  }
  if ((m = /must be at most (\d+) characters/.exec(text))) return `Use at most ${m[1]} characters.`;
  if ((m = /must be one of (.*)$/.exec(text))) return `${at}Choose one of: ${m[1]}.`;
  if (/unknown field/.test(text))
    return 'The page sent something the service does not know. Reload the page and try again.';
  if (/must not be null|should not be empty|must not be empty/.test(text)) return 'Fill this in.';
  // No rule: the service's own words, from a capital letter.
  const rest = text.replace(/^[:\s]+/, '');
  return at + rest.charAt(0).toUpperCase() + rest.slice(1) + (/[.!?]$/.test(rest) ? '' : '.');
}

/** `name: label …`, `records[0].ttl: must …`, `username must …`, `zone_file (LINE at x).type: …`. */
const PROBLEM = /^([a-z_]+(?:\[\d+\])?(?:\.[a-z_]+(?:\[\d+\])?)*)(?:\s\([^)]*\))?(?:\.[a-z_]+)*(?::\s*|\s+)(.*)$/i;

/** Codes whose message names a field of the form though the code is not `validation_failed`. */
const FIELD_OF_CODE: Record<string, string> = {
  invalid_fqdn: 'fqdn',
  fqdn_taken: 'fqdn',
  username_taken: 'username',
  email_taken: 'email',
};

function untilText(seconds: number): string {
  const at = new Date(Date.now() + seconds * 1000);
  const minutes = Math.ceil(seconds / 60);
  const clock = at.toISOString().slice(11, 16);
  return minutes <= 1 ? `in ${Math.max(1, Math.ceil(seconds))} seconds` : `in ${minutes} minutes (at ${clock} UTC)`;
}

/**
 * Explains an error for a form whose fields are named as the API names them; `values` are
 * what was sent (they tell apart problems the service words alike).
 */
export function explain(error: ApiError, values: Record<string, unknown> = {}): Explained {
  const wire = error.message;
  if (error.code === 'too_many_attempts') {
    const locked = /locked for (\d+) minutes/.exec(wire);
    const wait = error.retryAfter ? untilText(error.retryAfter) : 'later';
    return {
      fields: {},
      general: locked
        ? `Too many wrong passwords for this account: password login is locked for ${locked[1]} minutes. Try again ${wait}.`
        : `Too many attempts at once. Try again ${wait}.`,
      wire,
    };
  }
  const codeField = FIELD_OF_CODE[error.code];
  if (codeField)
    return {
      fields: { [codeField]: sentence(codeField, wire, error.code, values[codeField], null) },
      general: null,
      wire,
    };
  if (error.code !== 'validation_failed') return { fields: {}, general: wire, wire: null };
  const fields: Record<string, string> = {};
  const general: string[] = [];
  for (const part of wire.split('; ')) {
    const m = PROBLEM.exec(part);
    if (!m || /^(The|A|An)$/.test(m[1])) {
      general.push(part);
      continue;
    }
    const { field, line } = fieldOf(m[1]);
    if (field === 'zone_file') {
      fields[field] = 'A line of the zone file cannot be read; the details below say which and why.';
      continue;
    }
    const text = sentence(field, m[2], error.code, values[field], line);
    // Two problems of one field are both said.
    fields[field] = fields[field] ? `${fields[field]} ${text}` : text;
  }
  return { fields, general: general.length ? general.join(' ') : null, wire };
}
