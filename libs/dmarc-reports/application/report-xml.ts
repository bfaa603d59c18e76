import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { refuse } from '../domain/report-refusal';

/**
 * Any DTD is refused before parsing: aggregate reports never need one, and a DTD is how
 * entity-expansion ("billion laughs") and external-entity attacks arrive. Entity
 * processing is also off in the parser, so nothing a DTD could declare is ever expanded.
 */
const DTD = /<!(DOCTYPE|ENTITY)/i;

/** `<` that opens no well-formed tag, comment, CDATA or declaration (`bad<xml.net`, `<bad@x.net>`). */
const STRAY_LT = /<(?!\/?[A-Za-z_][\w.:-]*(?:\s[^<>]*)?\/?>|!--|!\[CDATA\[|\?)/g;

const parser = new XMLParser({
  ignoreAttributes: true,
  removeNSPrefix: true,
  parseTagValue: false,
  processEntities: false,
  trimValues: true,
  // Elements that repeat in reports: always arrays, whether a report has one or many.
  isArray: (name: string, _path: unknown, isLeaf: boolean) =>
    name === 'record' || name === 'reason' || ((name === 'dkim' || name === 'spf') && !isLeaf),
});

/**
 * The parsed document. XMLValidator runs first (the parser itself is lenient); a report
 * that fails it only because of stray `<` in text, as some reporters send, is repaired by
 * escaping those and validated again, like parsedmarc's recovering parser. Anything else
 * malformed is refused.
 */
export function parseReportXml(xml: string): Record<string, unknown> {
  if (DTD.test(xml)) throw refuse('xml_entities', 'XML with a DTD or entity declarations is refused (entity expansion)');
  let source = xml.charCodeAt(0) === 0xfeff ? xml.slice(1) : xml;
  const verdict = XMLValidator.validate(source);
  if (verdict !== true) {
    const repaired = source.replace(STRAY_LT, '&lt;');
    if (repaired === source || XMLValidator.validate(repaired) !== true) {
      throw refuse('malformed', `XML is not well-formed: ${verdict.err.msg} (line ${verdict.err.line})`);
    }
    source = repaired;
  }
  return parser.parse(source) as Record<string, unknown>;
}
