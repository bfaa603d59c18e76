import { gzipSync } from 'node:zlib';
import { generatedAggregateReport } from '../../../test/support/dmarc-samples';
import { ReportRefused } from '../domain/report-refusal';
import { ReportParser } from './report-parser';

/**
 * The streaming reader decodes and parses 64 KiB slices: what straddles a slice boundary
 * (a multi-byte character, a DOCTYPE, a stray `<`) must be read as in one piece.
 */
const parser = new ReportParser(32 * 1024 * 1024);
const SLICE = 64 * 1024;

const refusalOf = async (raw: Buffer): Promise<string> => {
  try {
    await parser.parse(raw);
  } catch (e) {
    if (e instanceof ReportRefused) return e.reason;
    throw e;
  }
  throw new Error('parsed, expected a refusal');
};

const aggregate = async (raw: Buffer) => {
  const r = await parser.parse(raw);
  if (r.kind !== 'aggregate') throw new Error('aggregate expected');
  return r;
};

const header =
  '<feedback><report_metadata><org_name>ORG</org_name><email>dmarc@x.example</email><report_id>1</report_id>' +
  '<date_range><begin>1700000000</begin><end>1700086399</end></date_range></report_metadata>' +
  '<policy_published><domain>example.com</domain><p>none</p></policy_published>';
const record = (from: string) =>
  `<record><row><source_ip>192.0.2.1</source_ip><count>2</count><policy_evaluated><disposition>none</disposition><dkim>pass</dkim><spf>fail</spf></policy_evaluated></row><identifiers><header_from>${from}</header_from></identifiers><auth_results><dkim><domain>example.com</domain><result>pass</result></dkim></auth_results></record>`;

describe('streaming report XML reader', () => {
  it('maps every record of a large report, in order, with its totals', async () => {
    const r = await aggregate(gzipSync(generatedAggregateReport(5000)));
    expect(r.records).toHaveLength(5000);
    expect(r.records.toArray()[4999].source_ip).toBe('10.0.19.135');
    expect(r.records.toArray().reduce((n, x) => n + x.count, 0)).toBe(
      Array.from({ length: 5000 }, (_, i) => (i % 7) + 1).reduce((a, b) => a + b, 0),
    );
  });

  it('keeps a multi-byte character whole when it straddles a slice boundary', async () => {
    const prefix = `${header}<!--`;
    // "é" (2 bytes) placed so its first byte is the last byte of the first slice.
    const pad = 'x'.repeat(
      SLICE -
        Buffer.byteLength(prefix) -
        '-->'.length -
        '<record><row><source_ip>192.0.2.1</source_ip><count>2</count><policy_evaluated><disposition>none</disposition><dkim>pass</dkim><spf>fail</spf></policy_evaluated></row><identifiers><header_from>'
          .length -
        1,
    );
    const xml = Buffer.from(`${prefix}${pad}-->${record('é.example')}</feedback>`);
    expect(xml.indexOf(Buffer.from('é'))).toBe(SLICE - 1);
    expect((await aggregate(xml)).records.toArray()[0].header_from).toBe('é.example');
  });

  it('refuses a DOCTYPE wherever it falls, also across a slice boundary', async () => {
    for (const shift of [0, 3, 8]) {
      const comment = `<!--${'x'.repeat(SLICE - 7 - shift)}-->`;
      expect(await refusalOf(Buffer.from(`${comment}<!DOCTYPE feedback><feedback/>`))).toBe('xml_entities');
    }
    expect(await refusalOf(Buffer.from(`${header}${' '.repeat(SLICE)}<!ENTITY a "b"></feedback>`))).toBe(
      'xml_entities',
    );
  });

  it('repairs stray "<" in text of a report larger than one slice', async () => {
    const records = Array.from({ length: 400 }, () => record('example.com')).join('');
    const xml = Buffer.from(
      `${header.replace('dmarc@x.example', '<dmarc@x.example>')}${records}${record('bad<xml.net')}</feedback>`,
    );
    expect(xml.length).toBeGreaterThan(SLICE);
    const r = await aggregate(xml);
    expect(r.email).toBe('<dmarc@x.example>');
    expect(r.records).toHaveLength(401);
    expect(r.records.toArray()[400].header_from).toBe('bad<xml.net');
  });

  it('decodes entities and CDATA once, keeps unknown named entities as written, drops namespace prefixes', async () => {
    const xml = `<d:feedback xmlns:d="urn:ietf:params:xml:ns:dmarc-2.0">${header
      .replace('<feedback>', '')
      .replace(/<(\/?)([a-z_]+)>/g, '<$1d:$2>')
      .replace(
        'ORG',
        'A &amp;amp; B&#x21; &nbsp;',
      )}${record('<![CDATA[cdata.example]]>').replace(/<(\/?)([a-z_]+)>/g, '<$1d:$2>')}</d:feedback>`;
    const r = await aggregate(Buffer.from(xml));
    expect(r.org_name).toBe('A &amp; B! &nbsp;');
    expect(r.policy.domain).toBe('example.com');
    expect(r.records.toArray()[0].header_from).toBe('cdata.example');
  });

  it('keeps the slips the earlier parser let through as text: control characters and "]]>"', async () => {
    const r = await aggregate(
      Buffer.from(`${header.replace('ORG', 'A\x0bB\x00 a]]>b')}${record('example.com')}</feedback>`),
    );
    expect(r.org_name).toBe('A\x0bB\x00 a]]>b');
  });

  it('treats element names such as __proto__ and constructor as plain names', async () => {
    const xml = `${header.replace('<report_metadata>', '<report_metadata><__proto__><email>evil@x</email></__proto__><constructor>c</constructor>')}${record('example.com')}</feedback>`;
    const r = await aggregate(Buffer.from(xml));
    expect(r.email).toBe('dmarc@x.example');
    expect(({} as Record<string, unknown>).email).toBeUndefined();
  });

  it('reads a report with a UTF-8 BOM, and a TLS report with one', async () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    expect(
      (await aggregate(Buffer.concat([bom, Buffer.from(`${header}${record('example.com')}</feedback>`)]))).records,
    ).toHaveLength(1);
    const tls = Buffer.from(
      JSON.stringify({
        'organization-name': 'x',
        'date-range': { 'start-datetime': '2024-01-01T00:00:00Z', 'end-datetime': '2024-01-01T23:59:59Z' },
        'contact-info': 'tls@x.example',
        'report-id': 'r1',
        policies: [
          {
            policy: { 'policy-type': 'sts', 'policy-domain': 'example.com' },
            summary: { 'total-successful-session-count': 1, 'total-failure-session-count': 0 },
          },
        ],
      }),
    );
    expect((await parser.parse(Buffer.concat([bom, tls]))).kind).toBe('tls');
  });

  it('refuses what is not well-formed or not one report', async () => {
    expect(await refusalOf(Buffer.from(`${header}<record><row></feedback>`))).toBe('malformed');
    expect(await refusalOf(Buffer.from('<feedback/><feedback/>'))).toBe('malformed');
    expect(await refusalOf(Buffer.from('<other><feedback/></other>'))).toBe('unsupported');
    expect(
      await refusalOf(
        Buffer.from(`${header}${record('example.com').replace('<count>2</count>', '<count>two</count>')}</feedback>`),
      ),
    ).toBe('malformed');
  });
});
