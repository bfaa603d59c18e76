/**
 * Domain names in three forms: presentation ("www.example.com", what APIs take), canonical
 * (lowercase, no trailing dot, "" for the root) and wire keys. A wire key is the
 * uncompressed wire encoding of a lowercased name read as a latin1 string: the hot path
 * turns a query's question bytes into one without decoding labels, and every suffix that
 * starts at a label boundary is the key of an ancestor name.
 */

const MAX_NAME_LENGTH = 253;
const MAX_LABEL_LENGTH = 63;
// Underscore labels are everyday DNS (_dmarc, _acme-challenge, SRV owners), so they pass.
const LABEL = /^(?:[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)$/;

/** Lowercase, trailing dot removed; "" and "." become "" (the root). */
export function canonicalName(name: string): string {
  const trimmed = name.trim().toLowerCase();
  return trimmed === '.' ? '' : trimmed.replace(/\.$/, '');
}

/**
 * Why `name` (canonical) is not a usable host or owner name, or null when it is.
 * `wildcard` allows a leading `*` label (RFC 4592 owner names).
 */
export function hostnameProblem(name: string, opts: { wildcard?: boolean } = {}): string | null {
  if (name === '') return 'name is empty';
  if (name.length > MAX_NAME_LENGTH) return `name is longer than ${MAX_NAME_LENGTH} characters`;
  const labels = name.split('.');
  for (let i = 0; i < labels.length; i++) {
    const label = labels[i];
    if (label === '') return `"${name}" has an empty label`;
    if (label.length > MAX_LABEL_LENGTH) return `label "${label}" is longer than ${MAX_LABEL_LENGTH} characters`;
    if (label === '*') {
      if (opts.wildcard && i === 0) continue;
      return `"${name}" has a "*" label that is not a leading wildcard`;
    }
    if (!LABEL.test(label))
      return `label "${label}" has characters other than letters, digits, "-" and "_", or starts or ends with "-"`;
  }
  return null;
}

/** Wire encoding of a canonical name whose labels hostnameProblem accepted. */
export function nameToWire(name: string): Buffer {
  if (name === '') return Buffer.from([0]);
  const labels = name.split('.');
  const out = Buffer.allocUnsafe(name.length + 2);
  let at = 0;
  for (const label of labels) {
    out[at++] = label.length;
    at += out.write(label, at, 'latin1');
  }
  out[at++] = 0;
  return out.subarray(0, at);
}

/**
 * The wire key of a canonical name: built as a string, the same characters `nameToWire` would
 * write read back as latin1, without a buffer in between (the index computes one per change and
 * per lookup by name). Names with characters past latin1 or labels too long for a length byte
 * (never accepted by hostnameProblem) take the buffer's path, which truncates them as it does.
 */
export function wireKey(name: string): string {
  if (name === '') return '\0';
  let key = '';
  let start = 0;
  for (let i = 0; i <= name.length; i++) {
    const c = i === name.length ? 46 : name.charCodeAt(i);
    if (c > 0xff) return nameToWire(name).toString('latin1');
    if (c !== 46) continue;
    const length = i - start;
    if (length > 0xff) return nameToWire(name).toString('latin1');
    key += String.fromCharCode(length) + name.slice(start, i);
    start = i + 1;
  }
  return key + '\0';
}

/** True when `key` equals `ancestorKey` or is a name below it (suffix at a label boundary). */
export function isAtOrBelow(key: string, ancestorKey: string): boolean {
  if (key.length < ancestorKey.length || !key.endsWith(ancestorKey)) return false;
  for (let at = 0; at < key.length; at += key.charCodeAt(at) + 1) {
    if (at === key.length - ancestorKey.length) return true;
  }
  return false;
}

/** Offset of the parent's key inside `key`, or -1 for the root. */
export const parentOffset = (key: string, from = 0): number => {
  const len = key.charCodeAt(from);
  return len === 0 ? -1 : from + len + 1;
};

const SAFE = /^[a-z0-9_*-]*$/;

/** Presentation form (canonical) of a wire key; odd bytes are escaped as \DDD, dots as "\.". */
export function wireKeyToName(key: string): string {
  let name = '';
  let at = 0;
  while (at < key.length) {
    const len = key.charCodeAt(at);
    if (len === 0) break;
    const label = key.slice(at + 1, at + 1 + len);
    if (name !== '') name += '.';
    name += SAFE.test(label) ? label : escapeLabel(label);
    at += len + 1;
  }
  return name;
}

function escapeLabel(label: string): string {
  let out = '';
  for (let i = 0; i < label.length; i++) {
    const c = label.charCodeAt(i);
    if (c === 0x2e || c === 0x5c) out += '\\' + label[i];
    else if (c <= 0x20 || c >= 0x7f) out += '\\' + String(c).padStart(3, '0');
    else out += label[i];
  }
  return out;
}
