import { gzipSync } from 'node:zlib';
import {
  ACCEPTED_QUIRKS,
  billionLaughs,
  FIXTURES,
  generatedAggregateReport,
  gzipBomb,
  quirk,
  REFUSED_QUIRKS,
  sample,
  zipBomb,
} from '../../../test/support/dmarc-samples';
import { ReportRefused } from '../domain/report-refusal';
import { ReportParser } from './report-parser';

const parser = new ReportParser();

const refusalOf = async (raw: Buffer): Promise<string> => {
  try {
    await parser.parse(raw);
  } catch (e) {
    if (e instanceof ReportRefused) return e.reason;
    throw e;
  }
  throw new Error('parsed, expected a refusal');
};

describe('ReportParser over the shared fixtures', () => {
  it.each(Object.entries(FIXTURES))('%s', async (file, expected) => {
    const report = await parser.parse(sample(file));
    expect(report.kind).toBe(expected.kind);
    if (report.kind === 'aggregate') {
      expect(report.records).toHaveLength(expected.records);
      expect(report.policy.domain).toBe(expected.zone);
    }
    if (report.kind === 'failure') expect(report.reported_domain).toBe(expected.zone);
    if (report.kind === 'tls') expect(report.policies[0].policy_domain).toBe(expected.zone);
  });

  it('reads the same report from xml, gzip and zip', async () => {
    const xml = await parser.parse(sample('extract_report/nice-input.xml'));
    expect(await parser.parse(sample('extract_report/nice-input.xml.gz'))).toEqual(xml);
    expect(await parser.parse(sample('extract_report/nice-input.xml.zip'))).toEqual(xml);
    if (xml.kind !== 'aggregate') throw new Error('aggregate expected');
    expect(xml.records.toArray().filter((r) => r.dkim_results.length > 1)).toHaveLength(15);
  });

  it('lower-cases result keywords, trims org_name and derives an empty org from the email', async () => {
    const upper = await parser.parse(sample('aggregate_invalid/report_with_upper_cased_pass.xml'));
    if (upper.kind !== 'aggregate') throw new Error('aggregate expected');
    expect(upper.org_name).toBe('example.com');
    expect([upper.records.toArray()[0].dkim, upper.records.toArray()[0].spf]).toEqual(expect.arrayContaining(['pass']));
    for (const r of upper.records.toArray())
      for (const d of [...r.dkim_results, ...r.spf_results]) expect(d.result).toBe(d.result.toLowerCase());
    const noOrg = await parser.parse(sample('aggregate/!example.com!1538204542!1538463818.xml'));
    if (noOrg.kind !== 'aggregate') throw new Error('aggregate expected');
    expect(noOrg.org_name).not.toBe('');
  });

  it('reads the RFC 9990 shape (namespace, generator, np, testing, disposition pass)', async () => {
    const r = await parser.parse(sample('aggregate/rfc9990-sample.xml'));
    if (r.kind !== 'aggregate') throw new Error('aggregate expected');
    expect(r.generator).toBe('Example DMARC Aggregate Reporter v1.2');
    expect(r.policy).toMatchObject({
      domain: 'example.com',
      p: 'quarantine',
      np: 'none',
      testing: 'n',
      discovery_method: 'treewalk',
    });
    expect(r.records.toArray()[0]).toMatchObject({
      source_ip: '192.0.2.123',
      count: 123,
      disposition: 'pass',
      dkim: 'pass',
      spf: 'fail',
    });
    expect(r.records.toArray()[0].dkim_results).toEqual([
      { domain: 'example.com', selector: 'abc123', result: 'pass' },
    ]);
  });

  it('recovers stray "<" in text the way upstream does', async () => {
    const r = await parser.parse(sample('aggregate/invalid_xml.xml'));
    if (r.kind !== 'aggregate') throw new Error('aggregate expected');
    expect(r.email).toBe('<bad-xml@bad-xml.net>');
    expect(r.records.toArray()[0].header_from).toBe('bad<xml.net');
  });

  it('keeps failure-report privacy fields apart and maps non-RFC delivery results', async () => {
    const r = await parser.parse(
      sample('forensic/DMARC Failure Report for domain.de (mail-from=sharepoint@domain.de, ip=10.10.10.10).eml'),
    );
    if (r.kind !== 'failure') throw new Error('failure expected');
    expect(r).toMatchObject({
      reported_domain: 'domain.de',
      source_ip: '10.10.10.10',
      delivery_result: 'policy',
      mail_from: 'sharepoint@domain.de',
      mail_from_domain: 'domain.de',
      subject: 'Subject',
      rcpt_domain: 'domain.de',
    });
    expect(JSON.stringify(r)).not.toContain('38.E7.30937.BD6E1BB5');
    const exim = await parser.parse(sample('forensic/exim_plain_text_only_no_arf_part.eml'));
    expect(exim).toMatchObject({
      kind: 'failure',
      reported_domain: 'example.com',
      source_ip: '203.0.113.68',
      subject: 'Payment from your account.',
    });
    const linkedin = await parser.parse(sample('forensic/dmarc_ruf_report_linkedin.eml'));
    expect(linkedin).toMatchObject({
      kind: 'failure',
      reported_domain: 'example.com',
      mail_from: 'sender@example.com',
      delivery_result: 'delivered',
    });
  });

  it('reads both TLS-RPT field spellings', async () => {
    const r = await parser.parse(sample('smtp_tls/rfc8460.json'));
    if (r.kind !== 'tls') throw new Error('tls expected');
    expect(r.policies[0]).toMatchObject({
      successful_sessions: 5326,
      failed_sessions: 303,
      mx_host: ['*.mail.company-y.example'],
    });
    expect(r.policies[0].failure_details[2].failure_reason_code).toBe('X509_V_ERR_PROXY_PATH_LENGTH_EXCEEDED');
    expect(await parser.parse(gzipSync(sample('smtp_tls/rfc8460.json')))).toEqual(r);
  });

  it('refuses the empty file, bombs, entity expansion and oversize reports', async () => {
    expect(await refusalOf(sample('empty.xml'))).toBe('malformed');
    expect(await refusalOf(gzipBomb())).toBe('decompression_bomb');
    expect(await refusalOf(zipBomb())).toBe('decompression_bomb');
    expect(await refusalOf(billionLaughs())).toBe('xml_entities');
    expect(await refusalOf(gzipSync(generatedAggregateReport(40_000)))).toBe('too_large');
    expect(await refusalOf(Buffer.from('<feedback><report_metadata></feedback>'))).toBe('malformed');
    expect(await refusalOf(Buffer.from('{"organization-name": "x"'))).toBe('malformed');
  });
});

describe('ReportParser over the real-world quirks (test/fixtures/dmarc-quirks)', () => {
  it.each(Object.entries(ACCEPTED_QUIRKS).filter(([, q]) => !q.mail))('recovers %s', async (file, expected) => {
    const report = await parser.parse(quirk(file));
    if (report.kind !== 'aggregate') throw new Error('aggregate expected');
    expect(report).toMatchObject({
      report_id: expected.reportId,
      org_name: expected.org ?? 'quirks.example',
      policy: { domain: 'example.com' },
    });
    expect(report.records.toArray()).toEqual([
      expect.objectContaining({ source_ip: '192.0.2.25', count: 3, header_from: 'example.com' }),
    ]);
  });

  it.each(Object.entries(REFUSED_QUIRKS))('refuses %s', async (file, expected) => {
    expect(await refusalOf(quirk(file))).toBe(expected.reason);
  });

  it('stays safe while lenient: entity declarations in UTF-16 or behind a repair, and bombs behind a rewritten gzip header', async () => {
    const laughs = billionLaughs().toString();
    expect(await refusalOf(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(laughs, 'utf16le')]))).toBe(
      'xml_entities',
    );
    expect(
      await refusalOf(Buffer.from(`<?xml version="1.0"?>"\n<xs:schema>${laughs.replace('<?xml version="1.0"?>', '')}`)),
    ).toBe('xml_entities');
    const bomb = gzipBomb();
    bomb[3] |= 0xe0; // reserved flags: taken through lenientGzip, still counted against the limit
    expect(await refusalOf(Buffer.concat([bomb, Buffer.from('\r\n')]))).toBe('decompression_bomb');
  });
});
