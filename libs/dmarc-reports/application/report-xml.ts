import { TextDecoder } from 'node:util';
import { SaxesParser } from 'saxes';
import { refuse } from '../domain/report-refusal';

/**
 * Any DTD is refused before parsing: aggregate reports never need one, and a DTD is how
 * entity-expansion ("billion laughs") and external-entity attacks arrive. The SAX parser
 * never expands anything a DTD declares either (it knows only the five predefined entities).
 */
const DTD = /<!(DOCTYPE|ENTITY)/i;

/** The longest text the DTD check must see across a slice boundary (`<!DOCTYPE` less one character). */
const DTD_OVERLAP = 8;

/** Bytes decoded and parsed at a time: the document is never one string, only its slices are. */
const SLICE_BYTES = 64 * 1024;

/** `<` that opens no well-formed tag, comment, CDATA or declaration (`bad<xml.net`, `<bad@x.net>`). */
const STRAY_LT = /<(?!\/?[A-Za-z_][\w.:-]*(?:\s[^<>]*)?\/?>|!--|!\[CDATA\[|\?)/g;
/** An XML Schema element some reporters put around (or before) `<feedback>`, often never closed. */
const SCHEMA_TAG = /<(?:[\w.-]+:)?schema\b[^<>]*>|<\/(?:[\w.-]+:)?schema\s*>/g;
/** Text between the XML declaration and the root (a stray quote after `?>`). */
const JUNK_AFTER_DECLARATION = /^(\s*<\?xml[^<>]*\?>)[^<]*/;
/** Anything after the report's end tag (NULs, a mail footer). */
const JUNK_AFTER_ROOT = /(<\/(?:[\w.-]+:)?feedback\s*>)[^]*$/;

/**
 * What a recovering parser (parsedmarc's lxml with recover=True) gets past, as text edits
 * made only when the strict pass failed; the result must then parse strictly. None of them
 * can bring in markup that was not there: they only remove or escape.
 */
const REPAIRS: Array<(xml: string) => string> = [
  (xml) => xml.replace(SCHEMA_TAG, ''),
  (xml) => xml.replace(JUNK_AFTER_DECLARATION, '$1\n'),
  (xml) => xml.replace(JUNK_AFTER_ROOT, '$1'),
  (xml) => xml.replace(STRAY_LT, '&lt;'),
];

/** UTF-16 text: a byte order mark, or `<?` with a zero byte beside each character. */
export const isUtf16Xml = (b: Uint8Array): boolean =>
  b.length >= 4 &&
  ((b[0] === 0xff && b[1] === 0xfe) ||
    (b[0] === 0xfe && b[1] === 0xff) ||
    (b[0] === 0x3c && b[1] === 0 && b[2] === 0x3f && b[3] === 0) ||
    (b[0] === 0 && b[1] === 0x3c && b[2] === 0 && b[3] === 0x3f));

const DECLARED_ENCODING = /^(?:\xef\xbb\xbf)?\s*<\?xml[^>]*?\bencoding\s*=\s*["']([A-Za-z0-9._:-]+)["']/;

/**
 * The decoder for a document, from its first bytes: UTF-16 by its byte order mark or zero
 * bytes, else the encoding the XML declaration names (windows-1252, ISO-8859-1 …, which
 * some reporters use), else UTF-8. An encoding the platform does not know, or UTF-16
 * declared over single-byte text, is read as UTF-8: lenient, never a refusal.
 */
export function xmlDecoder(head: Uint8Array): TextDecoder {
  if (isUtf16Xml(head)) return new TextDecoder(head[0] === 0xfe || head[0] === 0 ? 'utf-16be' : 'utf-16le');
  const declared = DECLARED_ENCODING.exec(
    Buffer.from(head.buffer, head.byteOffset, Math.min(head.byteLength, 256)).toString('latin1'),
  )?.[1];
  if (declared && !/^utf-?16/i.test(declared)) {
    try {
      return new TextDecoder(declared);
    } catch {
      /* unknown label: UTF-8 below */
    }
  }
  return new TextDecoder('utf-8');
}

/**
 * An element as the report mapper reads it: a leaf is its trimmed text; an element with
 * children is an object of them (a repeated child becomes an array), with `#text` when it
 * also holds text.
 */
export type XmlNode = string | { [name: string]: XmlNode | XmlNode[] };

/** Where one pass over a document hands each `<feedback><record>` as it closes (then drops its tree). */
export interface RecordCollector {
  record(node: XmlNode, index: number): void;
}

export interface ReportXml<C extends RecordCollector> {
  /** The `<feedback>` element without its records; undefined when the root is something else. */
  feedback: Record<string, XmlNode | XmlNode[]> | undefined;
  /** The collector that took the `<record>` elements of `<feedback>`. */
  records: C;
}

interface Open {
  name: string;
  children: Record<string, XmlNode | XmlNode[]> | null;
  text: string;
}

/**
 * Slips the earlier parser let through, kept as text: an unknown named entity (`&nbsp;`,
 * kept as written), a control character and `]]>` in text. They are a reporter's sloppy
 * text, not markup, and the values are only ever stored as JSON strings. Every other error
 * is fatal.
 */
const TOLERATED = ['undefined entity.', 'disallowed character.', 'the string "]]>" is disallowed in char data.'];

class NotWellFormed extends Error {}

const refuseDtd = (): never => {
  throw refuse('xml_entities', 'XML with a DTD or entity declarations is refused (entity expansion)');
};

/** Text of `bytes` a slice at a time (a character split between slices is kept whole); a leading BOM dropped. */
function* textSlices(bytes: Uint8Array): Generator<string> {
  const decoder = xmlDecoder(bytes.subarray(0, 256));
  for (let at = 0; at < bytes.length; at += SLICE_BYTES) {
    const text = decoder.decode(bytes.subarray(at, at + SLICE_BYTES), { stream: true });
    yield at === 0 && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  }
  const rest = decoder.decode();
  if (rest) yield rest;
}

const localName = (name: string): string => {
  const colon = name.indexOf(':');
  return colon < 0 ? name : name.slice(colon + 1);
};

/**
 * Children live in prototype-less objects: element names are the sender's, and one named
 * `__proto__` or `constructor` must be a plain key, not the object's prototype or an
 * inherited function.
 */
function attach(parent: Open, name: string, value: XmlNode): void {
  const children = (parent.children ??= Object.create(null) as Record<string, XmlNode | XmlNode[]>);
  const existing = children[name];
  if (existing === undefined) children[name] = value;
  else if (Array.isArray(existing)) existing.push(value);
  else children[name] = [existing, value];
}

/**
 * One pass of a strict SAX parser over the document (well-formedness checked as it goes),
 * fed a piece of text at a time. Only the report's header is kept as a tree: each
 * `<feedback><record>` is handed to the collector when it closes and its tree dropped, so a
 * 50,000-record report never exists as one object tree. Namespace prefixes are dropped
 * (RFC 9990 reports may use one).
 */
class ReportXmlScanner<C extends RecordCollector> {
  private readonly parser = new SaxesParser();
  private readonly stack: Open[] = [];
  private recordCount = 0;
  private rootName: string | null = null;
  private root: Open | null = null;
  /** The end of the text written so far, for a DTD split between two pieces. */
  private tail = '';

  constructor(private readonly records: C) {
    const { parser, stack } = this;
    parser.on('error', (e) => {
      if (TOLERATED.some((slip) => e.message.endsWith(slip))) return;
      throw new NotWellFormed(e.message);
    });
    parser.on('doctype', refuseDtd);
    parser.on('opentag', (tag) => {
      const name = localName(tag.name);
      const open: Open = { name, children: null, text: '' };
      if (stack.length === 0) {
        this.rootName = name;
        this.root = open;
      }
      stack.push(open);
    });
    const addText = (t: string) => {
      const top = stack[stack.length - 1];
      if (top) top.text += t;
    };
    parser.on('text', addText);
    parser.on('cdata', addText);
    parser.on('closetag', () => {
      const open = stack.pop()!;
      const text = open.text.trim();
      let value: XmlNode;
      if (open.children === null) value = text;
      else {
        if (text !== '') open.children['#text'] = text;
        value = open.children;
      }
      const parent = stack[stack.length - 1];
      if (!parent) return;
      if (open.name === 'record' && stack.length === 1 && this.rootName === 'feedback')
        records.record(value, this.recordCount++);
      else attach(parent, open.name, value);
    });
  }

  write(slice: string): void {
    if (DTD.test(this.tail + slice.slice(0, DTD_OVERLAP))) refuseDtd();
    if (DTD.test(slice)) refuseDtd();
    this.tail = slice.slice(-DTD_OVERLAP);
    this.parser.write(slice);
  }

  end(): ReportXml<C> {
    this.parser.close();
    const top = this.root;
    return {
      feedback: this.rootName === 'feedback' && top?.children ? top.children : undefined,
      records: this.records,
    };
  }
}

function scan<C extends RecordCollector>(slices: Iterable<string>, records: C): ReportXml<C> {
  const scanner = new ReportXmlScanner(records);
  for (const slice of slices) scanner.write(slice);
  return scanner.end();
}

/**
 * The same reader fed bytes as they arrive (an archive inflating): no whole document in
 * memory, not even its bytes. It has no repair: whoever feeds it falls back to
 * `parseReportXml` over the whole bytes when it fails, which repairs or refuses exactly
 * as for any other report.
 */
export class StreamingReportXml<C extends RecordCollector> {
  private readonly scanner: ReportXmlScanner<C>;
  /** Chosen from the first piece (see xmlDecoder). */
  private decoder: TextDecoder | null = null;
  private started = false;

  constructor(records: C) {
    this.scanner = new ReportXmlScanner(records);
  }

  write(bytes: Uint8Array): void {
    this.decoder ??= xmlDecoder(bytes.subarray(0, 256));
    const text = this.decoder.decode(bytes, { stream: true });
    if (text === '') return;
    this.scanner.write(!this.started && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
    this.started = true;
  }

  end(): ReportXml<C> {
    const rest = this.decoder?.decode() ?? '';
    if (rest) this.scanner.write(rest);
    return this.scanner.end();
  }
}

/**
 * Parses a report's bytes in one streaming pass: decoded a slice at a time into the SAX
 * parser, so neither the document's text nor its tree is ever whole in memory. A report
 * that is not well-formed only in ways a recovering parser gets past (REPAIRS: stray `<`
 * in text such as `<email><bad@x.net></email>`, an unclosed XML Schema wrapper, junk
 * before or after the root) is repaired as parsedmarc's parser would read it, and must
 * then parse; anything else is refused.
 */
export function parseReportXml<C extends RecordCollector>(bytes: Uint8Array, newCollector: () => C): ReportXml<C> {
  try {
    return scan(textSlices(bytes), newCollector());
  } catch (e) {
    if (!(e instanceof NotWellFormed)) throw e;
    // The rare repair path is the one place the whole text is built.
    const source = [...textSlices(bytes)].join('');
    const repaired = REPAIRS.reduce((xml, repair) => repair(xml), source);
    if (repaired !== source) {
      try {
        // A fresh collector: the failed pass may have taken some records already.
        return scan([repaired], newCollector());
      } catch (again) {
        if (!(again instanceof NotWellFormed)) throw again;
      }
    }
    throw refuse('malformed', `XML is not well-formed: ${e.message}`);
  }
}
