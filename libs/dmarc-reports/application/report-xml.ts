import { StringDecoder } from 'node:string_decoder';
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

/** UTF-8 text of `bytes` a slice at a time (a character split between slices is kept whole); a leading BOM dropped. */
function* textSlices(bytes: Uint8Array): Generator<string> {
  const decoder = new StringDecoder('utf8');
  for (let at = 0; at < bytes.length; at += SLICE_BYTES) {
    const text = decoder.write(bytes.subarray(at, at + SLICE_BYTES));
    yield at === 0 && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  }
  const rest = decoder.end();
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
      if (open.name === 'record' && stack.length === 1 && this.rootName === 'feedback') records.record(value, this.recordCount++);
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
    return { feedback: this.rootName === 'feedback' && top?.children ? top.children : undefined, records: this.records };
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
  private readonly decoder = new StringDecoder('utf8');
  private started = false;

  constructor(records: C) {
    this.scanner = new ReportXmlScanner(records);
  }

  write(bytes: Uint8Array): void {
    const text = this.decoder.write(bytes);
    if (text === '') return;
    this.scanner.write(!this.started && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
    this.started = true;
  }

  end(): ReportXml<C> {
    const rest = this.decoder.end();
    if (rest) this.scanner.write(rest);
    return this.scanner.end();
  }
}

/**
 * Parses a report's bytes in one streaming pass: decoded a slice at a time into the SAX
 * parser, so neither the document's text nor its tree is ever whole in memory. A report
 * that is not well-formed only because of stray `<` in text (some reporters send
 * `<email><bad@x.net></email>`) is repaired by escaping those, as parsedmarc's recovering
 * parser does, and must then parse; anything else is refused.
 */
export function parseReportXml<C extends RecordCollector>(bytes: Uint8Array, newCollector: () => C): ReportXml<C> {
  try {
    return scan(textSlices(bytes), newCollector());
  } catch (e) {
    if (!(e instanceof NotWellFormed)) throw e;
    // The rare repair path is the one place the whole text is built.
    const source = [...textSlices(bytes)].join('');
    const repaired = source.replace(STRAY_LT, '&lt;');
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
