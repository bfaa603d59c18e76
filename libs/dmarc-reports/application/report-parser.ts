import PostalMime from 'postal-mime';
import type { Email } from 'postal-mime';
import { aggregateRecordFrom, AggregateReport, aggregateReportFrom } from '../domain/aggregate-report';
import { FailureReport, failureReportFrom, Fields, summaryFields } from '../domain/failure-report';
import { refuse } from '../domain/report-refusal';
import { TlsReport, tlsReportFrom } from '../domain/tls-report';
import { PackedRecordList } from '../domain/packed-records';
import { isUtf16Xml, parseReportXml, RecordCollector, StreamingReportXml, XmlNode } from './report-xml';
import {
  gunzipLimited,
  gunzipStreaming,
  gzipDeclaredSize,
  isGzip,
  isZip,
  MAX_UNPACKED_BYTES,
  unzipFirst,
} from './unpack';

/** A parsed report with what identifies its delivery (failure reports need the mail's Message-ID for their key). */
export type ParsedReport = AggregateReport | TlsReport | (FailureReport & { report_message_id: string | null });

/** What the transport says about the payload, when it says anything. */
export interface ParseHints {
  contentType?: string;
  /** The kind of address a mail was sent to (dmarc-rua, dmarc-ruf, tls-rpt). */
  expect?: 'aggregate' | 'failure' | 'tls';
}

const REPORT_FILE = /\.(xml|json|gz|gzip|zip)$/i;
const ARCHIVE_OR_REPORT_TYPES =
  /^(application\/(gzip|x-gzip|zip|x-zip|x-zip-compressed|xml|octet-stream|tlsrpt\+json|tlsrpt\+gzip|json)|text\/xml)$/i;
const HEADERS_MARKER = /^-{2,}\s*This is a copy of the headers[^\n]*\n/im;
/**
 * gzip content declared larger than this is parsed while it inflates: below it, one-shot
 * inflating is cheaper and the buffer small (typical reports are a few KB).
 */
const STREAM_GZIP_FROM = 1024 * 1024;

export class ReportParser {
  constructor(private readonly maxUnpacked = MAX_UNPACKED_BYTES) {}

  async parse(raw: Uint8Array, hints: ParseHints = {}): Promise<ParsedReport> {
    if (raw.length === 0) throw refuse('malformed', 'the report is empty');
    if (raw.length > this.maxUnpacked) throw refuse('too_large', `the report is larger than ${this.maxUnpacked} bytes`);
    const payload = await this.payload(raw, 0);
    if (payload) return payload;
    return this.fromMail(raw, hints);
  }

  /** A report file (xml, json, gzip or zip of those); null when the bytes are not one (a mail). */
  private async payload(raw: Uint8Array, depth: number, name = ''): Promise<ParsedReport | null> {
    if (isGzip(raw) || isZip(raw)) {
      if (depth > 0) throw refuse('unsupported', 'nested archives are not accepted');
      if (isGzip(raw) && gzipDeclaredSize(raw) > STREAM_GZIP_FROM) {
        const streamed = await this.inflatingAggregate(raw);
        if (streamed) return streamed;
      }
      const inner = isGzip(raw)
        ? { name: name.replace(/\.(gz|gzip)$/i, ''), content: gunzipLimited(raw, this.maxUnpacked) }
        : unzipFirst(raw, isReportEntry, this.maxUnpacked);
      const parsed = await this.payload(inner.content, depth + 1, inner.name);
      if (!parsed)
        throw refuse('unsupported', `archive entry ${inner.name || '(unnamed)'} is not an XML or JSON report`);
      return parsed;
    }
    if (isUtf16Xml(raw)) return this.aggregate(raw);
    const start = firstSignificantByte(raw);
    if (start < 0) throw refuse('malformed', 'the report is empty');
    if (raw[start] === LT) return this.aggregate(raw);
    if (raw[start] === LBRACE)
      return this.tls(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('utf8', start));
    return null;
  }

  private aggregate(xml: Uint8Array): AggregateReport {
    const doc = parseReportXml(xml, () => new PackedXmlRecords());
    if (!doc.feedback) throw refuse('unsupported', 'XML is not a DMARC aggregate report (no <feedback> root)');
    return aggregateReportFrom(doc.feedback, doc.records.list);
  }

  /**
   * A large gzip'd aggregate report, parsed while it inflates, so neither its XML bytes nor
   * its text are ever whole in memory. Null when that does not give a report (not XML, not
   * well-formed, refused for any reason): the one-shot path then runs over the same bytes
   * and decides as for every report (repair, or which refusal wins), at the cost of a
   * second pass only for reports that fail.
   */
  private async inflatingAggregate(gz: Uint8Array): Promise<AggregateReport | null> {
    let xml: StreamingReportXml<PackedXmlRecords> | null = null;
    try {
      await gunzipStreaming(
        gz,
        (chunk) => {
          if (!xml) {
            const start = firstSignificantByte(chunk);
            if (start < 0 || chunk[start] !== LT) throw new Error('not an XML report');
            xml = new StreamingReportXml(new PackedXmlRecords());
          }
          xml.write(chunk);
        },
        this.maxUnpacked,
      );
      const doc = (xml as StreamingReportXml<PackedXmlRecords> | null)?.end();
      return doc?.feedback ? aggregateReportFrom(doc.feedback, doc.records.list) : null;
    } catch {
      return null;
    }
  }

  private tls(json: string): TlsReport {
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch (e) {
      throw refuse('malformed', `TLS report is not valid JSON: ${(e as Error).message}`);
    }
    return tlsReportFrom(parsed);
  }

  private async fromMail(raw: Uint8Array, hints: ParseHints): Promise<ParsedReport> {
    const mail = await parseMime(raw);
    if (mail.headers.length === 0)
      throw refuse('unsupported', 'not a report file (xml, json, gzip, zip) nor a mail message');
    const reporter = mail.from && 'address' in mail.from && mail.from.address ? mail.from.address : '';
    const parts = mail.attachments;
    const feedback = parts.find((a) => a.mimeType.toLowerCase() === 'message/feedback-report');
    if (feedback) {
      const arf = await headerFields(bytes(feedback.content));
      const originalPart = parts.find((a) =>
        /^(message\/rfc822|text\/rfc822-headers|message\/rfc822-headers)$/i.test(a.mimeType),
      );
      const original = originalPart ? await originalHeaders(bytes(originalPart.content)) : null;
      return {
        ...failureReportFrom({ reporter, arf, summary: null, original }),
        report_message_id: mail.messageId ?? null,
      };
    }
    for (const part of parts) {
      if (!ARCHIVE_OR_REPORT_TYPES.test(part.mimeType) && !REPORT_FILE.test(part.filename ?? '')) continue;
      const parsed = await this.payload(bytes(part.content), 0, part.filename ?? '');
      if (parsed) return parsed;
    }
    const text = mail.text ?? '';
    if (hints.expect !== 'aggregate' && hints.expect !== 'tls' && /^\s*Sender Domain:/im.test(text)) {
      const marker = HEADERS_MARKER.exec(text);
      const original = marker
        ? await originalHeaders(Buffer.from(text.slice(marker.index + marker[0].length).trimStart() + '\r\n\r\n'))
        : null;
      const summary = summaryFields(marker ? text.slice(0, marker.index) : text);
      return {
        ...failureReportFrom({ reporter, arf: null, summary, original }),
        report_message_id: mail.messageId ?? null,
      };
    }
    throw refuse('unsupported', 'the message carries no aggregate, failure or TLS report');
  }
}

/** Each `<record>` mapped as it closes and packed at once: a report's records never exist as objects all together. */
class PackedXmlRecords implements RecordCollector {
  readonly list = new PackedRecordList();

  record(node: XmlNode, index: number): void {
    this.list.add(aggregateRecordFrom(node, index));
  }
}

/**
 * A zip entry that may be the report: XML, JSON or a name without extension; not the
 * metadata archivers add (`__MACOSX/._report.xml`, dot-files), which would be taken first.
 */
const isReportEntry = (name: string): boolean =>
  !/(^|\/)(__MACOSX\/|\.)/.test(name) && (/\.(xml|json)$/i.test(name) || !name.includes('.'));

const LT = 0x3c;
const LBRACE = 0x7b;

/**
 * Index of the first byte after a UTF-8 BOM and whitespace, -1 when there is none: what a
 * report file is (XML, JSON) is told from its bytes, without decoding a large one whole.
 */
function firstSignificantByte(raw: Uint8Array): number {
  let at = raw.length >= 3 && raw[0] === 0xef && raw[1] === 0xbb && raw[2] === 0xbf ? 3 : 0;
  while (at < raw.length && (raw[at] === 0x20 || raw[at] === 0x0a || raw[at] === 0x0d || raw[at] === 0x09)) at++;
  return at < raw.length ? at : -1;
}

const bytes = (content: ArrayBuffer | Uint8Array | string): Uint8Array =>
  typeof content === 'string'
    ? Buffer.from(content)
    : content instanceof Uint8Array
      ? content
      : new Uint8Array(content);

async function parseMime(raw: Uint8Array): Promise<Email> {
  try {
    return await PostalMime.parse(raw, {
      attachmentEncoding: 'arraybuffer',
      forceRfc822Attachments: true,
      maxNestingDepth: 20,
    });
  } catch (e) {
    throw refuse('malformed', `the message could not be parsed: ${(e as Error).message}`);
  }
}

/** Header-format text (an ARF part, a header block) as fields, through the MIME parser rather than by hand. */
async function headerFields(raw: Uint8Array): Promise<Fields> {
  const parsed = await parseMime(raw);
  const fields: Fields = {};
  for (const h of parsed.headers) if (!(h.key in fields)) fields[h.key] = h.value.trim();
  return fields;
}

/** Headers of the original message, with the subject and From decoded (RFC 2047 words). */
async function originalHeaders(raw: Uint8Array): Promise<Fields> {
  const parsed = await parseMime(raw);
  const fields: Fields = {};
  for (const h of parsed.headers) if (!(h.key in fields)) fields[h.key] = h.value.trim();
  if (parsed.subject !== undefined) fields.subject = parsed.subject;
  if (parsed.from && 'address' in parsed.from && parsed.from.address) fields.from = `<${parsed.from.address}>`;
  return fields;
}
