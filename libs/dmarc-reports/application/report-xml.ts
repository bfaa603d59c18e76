import { SaxesParser } from 'saxes';
import { refuse } from '../domain/report-refusal';

/**
 * Any DTD is refused before parsing: aggregate reports never need one, and a DTD is how
 * entity-expansion ("billion laughs") and external-entity attacks arrive. The SAX parser
 * never expands anything a DTD declares either (it knows only the five predefined entities).
 */
const DTD = /<!(DOCTYPE|ENTITY)/i;

/** `<` that opens no well-formed tag, comment, CDATA or declaration (`bad<xml.net`, `<bad@x.net>`). */
const STRAY_LT = /<(?!\/?[A-Za-z_][\w.:-]*(?:\s[^<>]*)?\/?>|!--|!\[CDATA\[|\?)/g;

/**
 * An element as the report mapper reads it: a leaf is its trimmed text; an element with
 * children is an object of them (a repeated child becomes an array), with `#text` when it
 * also holds text.
 */
export type XmlNode = string | { [name: string]: XmlNode | XmlNode[] };

export interface ReportXml<R> {
  /** The `<feedback>` element without its records; undefined when the root is something else. */
  feedback: Record<string, XmlNode | XmlNode[]> | undefined;
  /** The `<record>` elements of `<feedback>`, each mapped as soon as it closed. */
  records: R[];
}

interface Open {
  name: string;
  children: Record<string, XmlNode | XmlNode[]> | null;
  text: string;
}

/**
 * An unknown named entity (`&nbsp;`) is kept as written, as before with entity processing
 * off: it is text a reporter put there, not markup. Every other error is fatal.
 */
const TOLERATED = 'undefined entity.';

class NotWellFormed extends Error {}

const localName = (name: string): string => {
  const colon = name.indexOf(':');
  return colon < 0 ? name : name.slice(colon + 1);
};

function attach(parent: Open, name: string, value: XmlNode): void {
  const children = (parent.children ??= {});
  const existing = children[name];
  if (existing === undefined) children[name] = value;
  else if (Array.isArray(existing)) existing.push(value);
  else children[name] = [existing, value];
}

/**
 * One pass of a strict SAX parser over the document (well-formedness checked as it goes).
 * Only the report's header is kept as a tree: each `<feedback><record>` is handed to
 * `mapRecord` when it closes and its tree dropped, so a 50,000-record report never exists
 * as one object tree. Namespace prefixes are dropped (RFC 9990 reports may use one).
 */
function scan<R>(xml: string, mapRecord: (node: XmlNode, index: number) => R): ReportXml<R> {
  const parser = new SaxesParser();
  const stack: Open[] = [];
  const records: R[] = [];
  let rootName: string | null = null;
  let root: Open | null = null;
  parser.on('error', (e) => {
    if (e.message.endsWith(TOLERATED)) return;
    throw new NotWellFormed(e.message);
  });
  parser.on('doctype', () => {
    throw refuse('xml_entities', 'XML with a DTD or entity declarations is refused (entity expansion)');
  });
  parser.on('opentag', (tag) => {
    const name = localName(tag.name);
    const open: Open = { name, children: null, text: '' };
    if (stack.length === 0) {
      rootName = name;
      root = open;
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
    if (open.name === 'record' && stack.length === 1 && rootName === 'feedback') records.push(mapRecord(value, records.length));
    else attach(parent, open.name, value);
  });
  parser.write(xml).close();
  const top = root as Open | null;
  return { feedback: rootName === 'feedback' && top?.children ? top.children : undefined, records };
}

/**
 * Parses a report in one streaming pass. A report that is not well-formed only because of
 * stray `<` in text (some reporters send `<email><bad@x.net></email>`) is repaired by
 * escaping those, as parsedmarc's recovering parser does, and must then parse; anything
 * else is refused.
 */
export function parseReportXml<R>(xml: string, mapRecord: (node: XmlNode, index: number) => R): ReportXml<R> {
  if (DTD.test(xml)) throw refuse('xml_entities', 'XML with a DTD or entity declarations is refused (entity expansion)');
  const source = xml.charCodeAt(0) === 0xfeff ? xml.slice(1) : xml;
  try {
    return scan(source, mapRecord);
  } catch (e) {
    if (!(e instanceof NotWellFormed)) throw e;
    const repaired = source.replace(STRAY_LT, '&lt;');
    if (repaired !== source) {
      try {
        return scan(repaired, mapRecord);
      } catch (again) {
        if (!(again instanceof NotWellFormed)) throw again;
      }
    }
    throw refuse('malformed', `XML is not well-formed: ${e.message}`);
  }
}
