import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { zipSync } from 'fflate';

export { generatedAggregateReport, generatedTotals } from '../../bench/dmarc/generated-report';

/**
 * The parsedmarc sample reports (Apache-2.0, licence and provenance in the folder's SOURCE.md),
 * kept in the repository so a fresh clone runs the suites that read them.
 */
export const SAMPLES_DIR = resolve(__dirname, '../fixtures/dmarc-samples');

export const sample = (relative: string): Buffer => readFileSync(join(SAMPLES_DIR, relative));
export const samplesIn = (folder: string): string[] =>
  readdirSync(join(SAMPLES_DIR, folder))
    .sort()
    .map((f) => `${folder}/${f}`);

/**
 * What SOURCE.md says each fixture is: its kind and record count, and the zone a test
 * must enrol for it. Fixtures that share a reporter and report id (the same report as
 * xml, gzip and zip) are duplicates of each other, by design of the pipeline.
 */
export const FIXTURES: Record<
  string,
  { kind: 'aggregate' | 'failure' | 'tls'; records: number; zone: string; messages?: number }
> = {
  'aggregate/!example.com!1538204542!1538463818.xml': { kind: 'aggregate', records: 1, zone: 'example.com' },
  'aggregate/addisonfoods.com!example.com!1536105600!1536191999.xml': {
    kind: 'aggregate',
    records: 1,
    zone: 'example.com',
  },
  'aggregate/empty_reason.xml': { kind: 'aggregate', records: 1, zone: 'example.com' },
  'aggregate/estadocuenta1.infonacot.gob.mx!example.com!1536853302!1536939702!2940.xml.zip': {
    kind: 'aggregate',
    records: 1,
    zone: 'example.com',
  },
  'aggregate/example.net!example.com!1529366400!1529452799.xml': { kind: 'aggregate', records: 1, zone: 'example.com' },
  'aggregate/fastmail.com!example.com!1516060800!1516147199!102675056.xml.gz': {
    kind: 'aggregate',
    records: 1,
    zone: 'indemed.com',
  },
  'aggregate/invalid_xml.xml': { kind: 'aggregate', records: 1, zone: 'example.com' },
  'aggregate/old_draft_from_wiki.xml': { kind: 'aggregate', records: 1, zone: 'example.com' },
  'aggregate/protection.outlook.com!example.com!1711756800!1711843200.xml': {
    kind: 'aggregate',
    records: 1,
    zone: 'example.com',
  },
  'aggregate/rfc9990-sample.xml': { kind: 'aggregate', records: 1, zone: 'example.com', messages: 123 },
  'aggregate/twilight.eml': { kind: 'aggregate', records: 1, zone: 'twlnet.com' },
  'aggregate/usssa.com!example.com!1538784000!1538870399.xml': { kind: 'aggregate', records: 2, zone: 'example.com' },
  'aggregate/veeam.com!example.com!1530133200!1530219600.xml': { kind: 'aggregate', records: 1, zone: 'example.com' },
  'aggregate_invalid/report_with_upper_cased_pass.xml': { kind: 'aggregate', records: 1, zone: 'example.com' },
  'extract_report/nice-input.xml': { kind: 'aggregate', records: 20, zone: 'example.com' },
  'extract_report/changed-input.xml': { kind: 'aggregate', records: 20, zone: 'example.com' },
  'forensic/DMARC Failure Report for domain.de (mail-from=sharepoint@domain.de, ip=10.10.10.10).eml': {
    kind: 'failure',
    records: 0,
    zone: 'domain.de',
  },
  'forensic/dmarc_ruf_report_linkedin.eml': { kind: 'failure', records: 0, zone: 'example.com' },
  'forensic/exim_plain_text_only_no_arf_part.eml': { kind: 'failure', records: 0, zone: 'example.com' },
  'smtp_tls/rfc8460.json': { kind: 'tls', records: 0, zone: 'company-y.example' },
  'smtp_tls/smtp_tls.json': { kind: 'tls', records: 0, zone: 'example.com' },
};

/** Same report as `extract_report/nice-input.xml`, packaged differently: refused as duplicates once that one is in. */
export const NICE_INPUT_COPIES = ['extract_report/nice-input.xml.gz', 'extract_report/nice-input.xml.zip'];

export const ENROLLED_ZONES = [...new Set(Object.values(FIXTURES).map((f) => f.zone))].sort();

/** A gzip whose output is far above the 10 MiB limit from a few KB of input. */
export const gzipBomb = (): Buffer => gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20));
export const zipBomb = (): Buffer =>
  Buffer.from(zipSync({ 'report.xml': new Uint8Array(64 * 1024 * 1024) }, { level: 9 }));

/** The classic "billion laughs" document. */
export const billionLaughs = (): Buffer =>
  Buffer.from(
    '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">' +
      '<!ENTITY lol3 ' +
      '"&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]><feedback><report_metadata><org_name>&lol3;</org_name></report_metadata></feedback>',
  );

/**
 * Synthetic reports with the quirks real reporters send (test/fixtures/dmarc-quirks, made
 * for this project; each cites the public issue that reported it, see README.md there).
 * All are for example.com, each with its own report id; `mail` ones are whole messages.
 */
export const QUIRKS_DIR = resolve(__dirname, '../fixtures/dmarc-quirks');
export const quirk = (file: string): Buffer => readFileSync(join(QUIRKS_DIR, file));
export const ACCEPTED_QUIRKS: Record<string, { reportId: string; org?: string; mail?: boolean; attachAs?: string }> = {
  'xsd-wrapper.xml': { reportId: 'quirk-xsd-wrapper' },
  'gzip-header-fields.xml.gz': { reportId: 'quirk-gzip-header-fields' },
  'gzip-bad-header-crc.xml.gz': { reportId: 'quirk-gzip-bad-header-crc' },
  'gzip-reserved-flags.xml.gz': { reportId: 'quirk-gzip-reserved-flags' },
  'gzip-trailing-crlf.xml.gz': { reportId: 'quirk-gzip-trailing-crlf', attachAs: 'application/gzip' },
  'utf8-bom.xml': { reportId: 'quirk-utf8-bom' },
  'utf16le-bom.xml': { reportId: 'quirk-utf16le', org: 'Société Exemple' },
  'utf16be-bom.xml': { reportId: 'quirk-utf16be' },
  'windows-1252.xml': { reportId: 'quirk-windows-1252', org: 'Société Exemple' },
  'junk-after-declaration.xml': { reportId: 'quirk-junk-after-declaration' },
  'prefixed-namespace.xml': { reportId: 'quirk-prefixed-namespace' },
  'squished.xml': { reportId: 'quirk-squished' },
  'off-schema-keywords.xml': { reportId: 'quirk-off-schema-keywords' },
  'macosx-metadata-first.zip': { reportId: 'quirk-zip-metadata-first' },
  'gzip-as-application-zip.eml': { reportId: 'quirk-gzip-as-zip', mail: true },
  'gzip-as-text-xml.eml': { reportId: 'quirk-gzip-as-text-xml', mail: true },
  'gzip-unnamed-octet-stream.eml': { reportId: 'quirk-gzip-unnamed', mail: true },
  'forwarded-as-message-rfc822.eml': { reportId: 'quirk-forwarded', mail: true },
};
/** Quirks no lenient parser recovers a report from: refused, with the reason. */
export const REFUSED_QUIRKS: Record<string, { reason: string; message: RegExp }> = {
  'unused.xml.gz': { reason: 'unsupported', message: /not an XML or JSON report/ },
};
