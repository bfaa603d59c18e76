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

/** A prefixed element name (`<dmarc:record>`): only then is the slower prefix-stripping parser needed. */
const PREFIXED_TAG = /<\/?[A-Za-z_][\w.-]*:/;

const OPTIONS = { ignoreAttributes: true, parseTagValue: false, processEntities: false, trimValues: true } as const;
// Repeated elements come back as an object or an array; the report mapper reads both,
// which is cheaper than an isArray callback on every element of a 50,000-record report.
const plainParser = new XMLParser(OPTIONS);
const prefixParser = new XMLParser({ ...OPTIONS, removeNSPrefix: true });

/** Records parsed per slice of a large report, so the library's tree of one slice at a time is alive. */
const RECORDS_PER_SLICE = 2000;
/** Below this a report is parsed in one go: two parses (header, records) would cost more than they save. */
const SLICE_ABOVE_CHARS = 1024 * 1024;

export interface ReportXml {
  /** The `<feedback>` element without its records. */
  feedback: Record<string, unknown> | undefined;
  /** The `<record>` elements, a slice at a time, in document order. */
  records(): Iterable<unknown>;
}

function validated(xml: string): string {
  if (DTD.test(xml)) throw refuse('xml_entities', 'XML with a DTD or entity declarations is refused (entity expansion)');
  const source = xml.charCodeAt(0) === 0xfeff ? xml.slice(1) : xml;
  const verdict = XMLValidator.validate(source);
  if (verdict === true) return source;
  // Some reporters send stray `<` in text; like parsedmarc's recovering parser, such a
  // report is repaired by escaping them, and must then validate. Anything else is refused.
  const repaired = source.replace(STRAY_LT, '&lt;');
  if (repaired === source || XMLValidator.validate(repaired) !== true) {
    throw refuse('malformed', `XML is not well-formed: ${verdict.err.msg} (line ${verdict.err.line})`);
  }
  return repaired;
}

const asList = (node: unknown): unknown[] => (node === undefined || node === '' ? [] : Array.isArray(node) ? node : [node]);

/**
 * Validates the whole document (XMLValidator first, as the parser itself is lenient), then
 * parses it. A validated report without comments, CDATA or prefixes has `<record>` and
 * `</record>` only as its records' tags, so a large one is parsed as its header plus
 * slices of whole records, each by the library: the same result as one parse, with a
 * fraction of the memory.
 */
export function parseReportXml(xml: string): ReportXml {
  const source = validated(xml);
  const prefixed = PREFIXED_TAG.test(source);
  const parser = prefixed ? prefixParser : plainParser;
  const first = source.indexOf('<record>');
  const last = source.lastIndexOf('</record>');
  const sliceable = source.length > SLICE_ABOVE_CHARS && !prefixed && first > 0 && last > first && !source.includes('<!--') && !source.includes('<![CDATA[');
  if (!sliceable) {
    const feedback = (parser.parse(source) as Record<string, unknown>).feedback as Record<string, unknown> | undefined;
    const records = asList(feedback && typeof feedback === 'object' ? feedback.record : undefined);
    return { feedback: feedback && typeof feedback === 'object' ? feedback : undefined, records: () => records };
  }
  const end = last + '</record>'.length;
  const header = parser.parse(source.slice(0, first) + source.slice(end)) as Record<string, unknown>;
  return {
    feedback: header.feedback as Record<string, unknown> | undefined,
    *records() {
      for (let at = first; at < end; ) {
        let sliceEnd = at;
        for (let n = 0; n < RECORDS_PER_SLICE && sliceEnd < end; n++) sliceEnd = source.indexOf('</record>', sliceEnd) + '</record>'.length;
        const slice = parser.parse(`<s>${source.slice(at, sliceEnd)}</s>`) as { s?: { record?: unknown } };
        yield* asList(slice.s?.record);
        at = sliceEnd;
      }
    },
  };
}
