import { execFile } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { DMARC_AGGREGATE_STATS, DmarcAggregateStats } from '../libs/email-auth/application/aggregate-stats.port';
import { FAILURE_REPORT_SEAL, reportStream } from '../libs/dmarc-reports/domain/report.events';
import { SmtpIntake } from '../libs/dmarc-reports/application/smtp-intake';
import { ReportRetention } from '../libs/dmarc-reports/application/report-retention';
import { ProjectionEngine } from '../libs/projection-engine/projection-engine';
import { ReadModel } from '../libs/projection-engine/read-model';
import { Doc } from '../libs/readstore/read-store.port';
import { DMARC_FAILURE_REPORTS } from '../projections/dmarc-failure-reports.projection';
import { blockLines, DMARC_REPORT_ROW_BLOCKS, rowsHeld } from '../projections/dmarc-report-row-blocks';
import { DMARC_REPORTS } from '../projections/dmarc-reports.projection';
import { TLS_REPORTS } from '../projections/tls-reports.projection';
import {
  billionLaughs,
  ENROLLED_ZONES,
  FIXTURES,
  generatedAggregateReport,
  generatedTotals,
  gzipBomb,
  NICE_INPUT_COPIES,
  sample,
  SAMPLES_DIR,
  zipBomb,
} from './support/dmarc-samples';
import { mediaTypeOf, postRaw, swaks } from './support/report-intake';
import { ADMIN_TOKEN, registerAndLogin, startTestApp, TestApp } from './support/test-app';

const run = promisify(execFile);
/** The built operator CLI (`npm test` builds first). */
const CLI = resolve(__dirname, '../dist/apps/cli/main.js');

async function enrol(t: TestApp, zones: string[]): Promise<number> {
  const account = await registerAndLogin(t.http);
  const res = await t.http.admin('PUT', `/admin/accounts/${account.id}/subscription`, {
    email_auth: { tier: 'enterprise', domains: zones },
  });
  expect(res.status).toBe(200);
  return account.id;
}

const readModel = <D extends Doc>(t: TestApp, model: ReadModel<D>) =>
  t.running.app.get(ProjectionEngine).readModel(model);
const rowsOf = async (t: TestApp, reportKey: string) =>
  rowsHeld(await readModel(t, DMARC_REPORT_ROW_BLOCKS).find({ report_key: reportKey }));
const refusedCount = async (t: TestApp, reason: string, source: string): Promise<number> => {
  const text = (await t.http.get('/metrics')).text;
  const m = new RegExp(`^dmarc_reports_refused_total\\{reason="${reason}",source="${source}"\\} (\\d+)`, 'm').exec(
    text,
  );
  return m ? Number(m[1]) : 0;
};

describe('report ingestion over HTTP (contract §8)', () => {
  let t: TestApp;
  let accountId: number;
  beforeAll(async () => {
    t = await startTestApp({ env: { SMTP_PORT: '0' } });
    accountId = await enrol(t, ENROLLED_ZONES);
  });
  afterAll(() => t.close());

  const fileFixtures = Object.entries(FIXTURES).filter(([f]) => !f.startsWith('smtp_tls/'));

  it.each(fileFixtures)('POST /admin/reports stores %s as SOURCE.md says', async (file, expected) => {
    const res = await postRaw(t.url, '/admin/reports', sample(file), mediaTypeOf(file));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      kind: expected.kind,
      zone: expected.zone,
      record_count: expected.records,
      id: expect.any(String),
    });
    if (expected.kind === 'aggregate') {
      const report = await readModel(t, DMARC_REPORTS).findOne({ _id: res.body.id });
      expect(report).toMatchObject({
        zone: expected.zone,
        account_id: accountId,
        record_count: expected.records,
        source: 'admin',
      });
      expect(await rowsOf(t, res.body.id)).toBe(expected.records);
    } else {
      expect(await readModel(t, DMARC_FAILURE_REPORTS).findOne({ _id: res.body.id })).toMatchObject({
        zone: expected.zone,
        account_id: accountId,
      });
    }
  });

  it('stores the rows the read API serves (source IP, count, disposition, DKIM/SPF, header_from, period, reporter)', async () => {
    const reports = await readModel(t, DMARC_REPORTS).find({ report_id: '3v98abbp8ya9n3va8yr8oa3ya' });
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatchObject({
      org_name: 'Sample Reporter',
      begin: '1979-08-07T00:00:00.000Z',
      message_count: 123,
      passing_count: 123,
      policy: { p: 'quarantine' },
    });
    const [block] = await readModel(t, DMARC_REPORT_ROW_BLOCKS).find({ report_key: reports[0]._id });
    expect(block).toMatchObject({
      zone: 'example.com',
      begin: '1979-08-07T00:00:00.000Z',
      source_ips: '"192.0.2.123"',
    });
    // Stored as the API's JSON of the row from `count` on.
    const row = JSON.parse(`{${blockLines(block.tails)[0].slice(1)}`);
    expect(row).toMatchObject({
      count: 123,
      disposition: 'pass',
      dkim: 'pass',
      spf: 'fail',
      header_from: 'example.com',
      dkim_results: [{ domain: 'example.com', selector: 'abc123', result: 'pass' }],
      spf_results: [{ domain: 'example.com', result: 'fail' }],
    });
  });

  it.each(NICE_INPUT_COPIES)(
    'refuses %s as a duplicate of nice-input.xml (same reporter and report id)',
    async (file) => {
      const before = await refusedCount(t, 'duplicate', 'admin');
      const res = await postRaw(t.url, '/admin/reports', sample(file), mediaTypeOf(file));
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('duplicate_report');
      expect(await refusedCount(t, 'duplicate', 'admin')).toBe(before + 1);
    },
  );

  it('keeps failure-report subjects and full mail-from sealed, and no message id anywhere', async () => {
    const doc = await readModel(t, DMARC_FAILURE_REPORTS).findOne({ zone: 'domain.de' });
    expect(doc).toMatchObject({
      reported_domain: 'domain.de',
      source_ip: '10.10.10.10',
      mail_from_domain: 'domain.de',
      delivery_result: 'policy',
    });
    expect(doc!.subject_sealed).toMatch(/^v1\./);
    expect(t.running.deps.secretBox.openString(doc!.subject_sealed!, FAILURE_REPORT_SEAL)).toBe('Subject');
    expect(t.running.deps.secretBox.openString(doc!.mail_from_sealed!, FAILURE_REPORT_SEAL)).toBe(
      'sharepoint@domain.de',
    );
    const events = await t.running.deps.eventStore.readStream(reportStream(doc!._id));
    const stored = JSON.stringify([doc, events.map((e) => e.data)]);
    for (const secret of ['sharepoint@domain.de', '38.E7.30937.BD6E1BB5', 'OF587285BA'])
      expect(stored).not.toContain(secret);
  });

  it('takes RFC 8460 reports on POST /reports/tls-rpt, plain and gzip, without credentials', async () => {
    const gz = await postRaw(
      t.url,
      '/reports/tls-rpt',
      gzipSync(sample('smtp_tls/rfc8460.json')),
      'application/tlsrpt+gzip',
      false,
    );
    expect(gz.status).toBe(201);
    expect(gz.body).toMatchObject({ kind: 'tls', zone: 'company-y.example' });
    const plain = await postRaw(
      t.url,
      '/reports/tls-rpt',
      sample('smtp_tls/smtp_tls.json'),
      'application/tlsrpt+json',
      false,
    );
    expect(plain.status).toBe(201);
    expect(await readModel(t, TLS_REPORTS).findOne({ _id: plain.body.id })).toMatchObject({
      zone: 'example.com',
      successful_sessions: 0,
      failed_sessions: 3,
    });
    expect(await readModel(t, TLS_REPORTS).findOne({ _id: gz.body.id })).toMatchObject({
      successful_sessions: 5326,
      failed_sessions: 303,
    });
    const again = await postRaw(
      t.url,
      '/reports/tls-rpt',
      sample('smtp_tls/smtp_tls.json'),
      'application/tlsrpt+json',
      false,
    );
    expect(again.status).toBe(409);
  });

  it('refuses a DMARC report on the TLS-RPT endpoint without storing it', async () => {
    const xml = generatedAggregateReport(3, { reportId: 'tls-endpoint-probe' });
    const res = await postRaw(t.url, '/reports/tls-rpt', xml, 'application/xml', false);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('unsupported_report');
    expect(await readModel(t, DMARC_REPORTS).countDocuments({ report_id: 'tls-endpoint-probe' })).toBe(0);
  });

  it.each([
    ['empty.xml', () => sample('empty.xml'), 400, 'malformed_report', 'malformed'],
    ['a gzip bomb', gzipBomb, 413, 'decompression_bomb', 'decompression_bomb'],
    ['a zip bomb', zipBomb, 413, 'decompression_bomb', 'decompression_bomb'],
    ['XML entity expansion', billionLaughs, 400, 'xml_entities_refused', 'xml_entities'],
    [
      'a report over 10 MiB unpacked',
      () => gzipSync(generatedAggregateReport(40_000, { reportId: 'oversize' })),
      413,
      'report_too_large',
      'too_large',
    ],
    [
      'a report for an unenrolled domain',
      () => generatedAggregateReport(2, { domain: 'not-enrolled.example' }),
      422,
      'unknown_domain',
      'unknown_domain',
    ],
  ] as const)('refuses %s with a reason, logged and counted', async (_name, body, status, code, reason) => {
    const before = await refusedCount(t, reason, 'admin');
    const res = await postRaw(t.url, '/admin/reports', body(), 'application/octet-stream');
    expect(res.status).toBe(status);
    expect(res.body.error).toEqual({ code, message: expect.any(String) });
    expect(await refusedCount(t, reason, 'admin')).toBe(before + 1);
  });

  it('imports a report file with the operator CLI (reports:import)', async () => {
    const file = join(tmpdir(), `cli-report-${process.pid}.xml`);
    writeFileSync(file, generatedAggregateReport(12, { reportId: 'cli-import-12' }));
    const env = { ...process.env, ADMIN_URL: t.url, ADMIN_TOKEN };
    const first = await run('node', [CLI, 'reports:import', file], { env });
    expect(JSON.parse(first.stdout)).toMatchObject({ kind: 'aggregate', zone: 'example.com', record_count: 12 });
    expect(await readModel(t, DMARC_REPORTS).findOne({ report_id: 'cli-import-12' })).toMatchObject({
      source: 'cli',
      record_count: 12,
    });
    const again = await run('node', [CLI, 'reports:import', file], { env }).catch(
      (e: { code: number; stderr: string }) => e,
    );
    expect(again).toMatchObject({ code: 1, stderr: expect.stringMatching(/409: .*already received/) });
    rmSync(file);
  });

  it('needs the admin token on /admin/reports', async () => {
    const res = await postRaw(
      t.url,
      '/admin/reports',
      sample('aggregate/rfc9990-sample.xml'),
      'application/xml',
      false,
    );
    expect([401, 404]).toContain(res.status);
  });

  it('stores a large report as one header and chunked rows, all in one append', async () => {
    const res = await postRaw(
      t.url,
      '/admin/reports',
      gzipSync(generatedAggregateReport(5000, { reportId: 'large-5000' })),
      'application/gzip',
    );
    expect(res.status).toBe(201);
    expect(res.body.record_count).toBe(5000);
    expect(await rowsOf(t, res.body.id)).toBe(5000);
    const events = await t.running.deps.eventStore.readStream(reportStream(res.body.id));
    expect(events.map((e) => e.type)).toEqual([
      'DmarcAggregateReportReceived',
      ...Array(5).fill('DmarcAggregateRecordsAdded'),
    ]);
    expect(events.map((e) => e.revision)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('stores none of a report whose one record is broken', async () => {
    const xml = generatedAggregateReport(3000, { reportId: 'broken-2999' })
      .toString()
      .replace('<source_ip>10.0.11.183</source_ip><count>', '<source_ip>10.0.11.183</source_ip><count>x');
    const res = await postRaw(t.url, '/admin/reports', Buffer.from(xml), 'application/xml');
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/record 3000/);
    expect(await readModel(t, DMARC_REPORTS).countDocuments({ report_id: 'broken-2999' })).toBe(0);
    expect(
      (await t.running.deps.eventStore.readAll()).some((e) => JSON.stringify(e.data).includes('broken-2999')),
    ).toBe(false);
  });

  it('answers the wizard totals (DmarcAggregateStats) from the ingested fixtures', async () => {
    const stats = t.running.app.get<DmarcAggregateStats>(DMARC_AGGREGATE_STATS);
    // Independent sums of the fixtures' <count> (ElementTree): rfc9990-sample (1979) + old_draft_from_wiki (2012), one day, all.
    expect(
      await stats.totals('example.com', new Date('1970-01-01T00:00:00Z'), new Date('2018-01-01T00:00:00Z')),
    ).toEqual({ messages: 125, passing: 125 });
    expect(
      await stats.totals('example.com', new Date('2024-06-13T00:00:00Z'), new Date('2024-06-14T00:00:00Z')),
    ).toEqual({ messages: 6094, passing: 6094 });
    const all = await stats.totals('example.com', new Date('1970-01-01T00:00:00Z'), new Date('2100-01-01T00:00:00Z'));
    // Plus the two generated reports of this file (5000 records, and 12 through the CLI).
    const [large, cli] = [generatedTotals(5000), generatedTotals(12)];
    expect(all).toEqual({
      messages: 6231 + large.messages + cli.messages,
      passing: 6222 + large.passing + cli.passing,
    });
    expect(
      await stats.totals('twlnet.com', new Date('2019-02-10T00:00:00Z'), new Date('2019-02-11T00:00:00Z')),
    ).toEqual({
      messages: expect.any(Number),
      passing: expect.any(Number),
    });
    expect(
      await stats.totals('indemed.com', new Date('2018-01-16T00:00:00Z'), new Date('2018-01-17T00:00:00Z')),
    ).toEqual({ messages: 1, passing: 0 });
    expect(
      await stats.totals('example.com', new Date('2030-01-01T00:00:00Z'), new Date('2031-01-01T00:00:00Z')),
    ).toEqual({ messages: 0, passing: 0 });
  });

  it('drops reports older than three years from the read models (contract §15)', async () => {
    const cutoff = await t.running.app.get(ReportRetention).apply(new Date('2021-03-01T00:00:00Z'));
    expect(cutoff).toBe('2018-03-01T00:00:00.000Z');
    await t.running.app.get(ProjectionEngine).waitFor(await t.running.deps.eventStore.headPosition());
    const stats = t.running.app.get<DmarcAggregateStats>(DMARC_AGGREGATE_STATS);
    expect(
      await stats.totals('example.com', new Date('1970-01-01T00:00:00Z'), new Date('2018-03-01T00:00:00Z')),
    ).toEqual({ messages: 0, passing: 0 });
    expect(await readModel(t, DMARC_REPORT_ROW_BLOCKS).countDocuments({ begin: { $lt: cutoff } })).toBe(0);
    expect(await readModel(t, TLS_REPORTS).countDocuments({})).toBe(1); // the 2016 RFC example is gone, the 2024 one stays
    expect(
      await stats.totals('example.com', new Date('2024-06-13T00:00:00Z'), new Date('2024-06-14T00:00:00Z')),
    ).toEqual({ messages: 6094, passing: 6094 });
  });
});

describe('report ingestion over SMTP (swaks)', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await startTestApp({ env: { SMTP_PORT: '0' } });
    await enrol(t, ENROLLED_ZONES);
    port = t.running.app.get(SmtpIntake).port!;
  });
  afterAll(() => t.close());

  const mails: Array<[string, string]> = [
    ['aggregate/twilight.eml', 'dmarc-rua@twlnet.com'],
    [
      'forensic/DMARC Failure Report for domain.de (mail-from=sharepoint@domain.de, ip=10.10.10.10).eml',
      'dmarc-ruf@domain.de',
    ],
    ['forensic/dmarc_ruf_report_linkedin.eml', 'dmarc-ruf@example.com'],
    ['forensic/exim_plain_text_only_no_arf_part.eml', 'dmarc-ruf+example.com@intake.example.net'],
  ];

  it.each(mails)('accepts %s sent to %s', async (file, to) => {
    const { code, transcript } = await swaks(port, to, join(SAMPLES_DIR, file));
    expect(transcript).toMatch(/<- {2}250 2\.0\.0 (aggregate|failure) report \w+ accepted/);
    expect(code).toBe(0);
    const expected = FIXTURES[file];
    const id = /report (\w+) accepted/.exec(transcript)![1];
    if (expected.kind === 'aggregate') {
      await t.running.app.get(ProjectionEngine).waitFor(await t.running.deps.eventStore.headPosition());
      expect(await readModel(t, DMARC_REPORTS).findOne({ _id: id })).toMatchObject({
        zone: expected.zone,
        record_count: expected.records,
        source: 'smtp',
      });
      expect(await rowsOf(t, id)).toBe(expected.records);
    } else {
      await t.running.app.get(ProjectionEngine).waitFor(await t.running.deps.eventStore.headPosition());
      expect(await readModel(t, DMARC_FAILURE_REPORTS).findOne({ _id: id })).toMatchObject({
        zone: expected.zone,
        source: 'smtp',
      });
    }
  });

  it('accepts an RFC 8460 report mailed as an application/tlsrpt+gzip attachment', async () => {
    const file = join(tmpdir(), `tlsrpt-${process.pid}.json.gz`);
    writeFileSync(file, gzipSync(sample('smtp_tls/rfc8460.json')));
    const { code, transcript } = await swaks(port, 'tls-rpt@company-y.example', file, {
      type: 'application/tlsrpt+gzip',
      name: 'company-x.example!company-y.example!1459468800!1459555199!001.json.gz',
    });
    rmSync(file);
    expect(transcript).toMatch(/250 2\.0\.0 tls report (\w+) accepted for company-y\.example/);
    expect(code).toBe(0);
    const id = /tls report (\w+) accepted/.exec(transcript)![1];
    await t.running.app.get(ProjectionEngine).waitFor(await t.running.deps.eventStore.headPosition());
    expect(await readModel(t, TLS_REPORTS).findOne({ _id: id })).toMatchObject({
      zone: 'company-y.example',
      source: 'smtp',
      successful_sessions: 5326,
      failed_sessions: 303,
    });
  });

  it('answers a resent report 250 but stores it once, and counts the duplicate', async () => {
    const before = await refusedCount(t, 'duplicate', 'smtp');
    const { code, transcript } = await swaks(port, 'dmarc-rua@twlnet.com', join(SAMPLES_DIR, 'aggregate/twilight.eml'));
    expect(code).toBe(0);
    expect(transcript).toMatch(/250 2\.0\.0 Duplicate report ignored/);
    expect(await refusedCount(t, 'duplicate', 'smtp')).toBe(before + 1);
    expect(await readModel(t, DMARC_REPORTS).countDocuments({ zone: 'twlnet.com' })).toBe(1);
  });

  it('refuses recipients outside enrolled zones and unknown mailboxes at RCPT', async () => {
    const before = await refusedCount(t, 'unknown_domain', 'smtp');
    const unenrolled = await swaks(port, 'dmarc-rua@not-enrolled.example', join(SAMPLES_DIR, 'aggregate/twilight.eml'));
    expect(unenrolled.code).not.toBe(0);
    expect(unenrolled.transcript).toMatch(/550 5\.1\.1 .*not enrolled/);
    expect(await refusedCount(t, 'unknown_domain', 'smtp')).toBe(before + 1);
    const mailbox = await swaks(port, 'postmaster@example.com', join(SAMPLES_DIR, 'aggregate/twilight.eml'));
    expect(mailbox.transcript).toMatch(/550 5\.1\.1 .*no such report mailbox/);
  });

  it('refuses a report for another zone than the address it was sent to', async () => {
    const { code, transcript } = await swaks(
      port,
      'dmarc-rua@example.com',
      join(SAMPLES_DIR, 'aggregate/twilight.eml'),
    );
    expect(code).not.toBe(0);
    expect(transcript).toMatch(/550 5\.6\.0 Report refused \(unknown_domain\)/);
  });
});
