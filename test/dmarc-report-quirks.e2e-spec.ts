/**
 * Real-world report quirks (issue 24) ingested by real SMTP (swaks): every report a
 * lenient, safe parser recovers is stored, the rest refused with the reason. Fixtures:
 * test/fixtures/dmarc-quirks (synthetic; its README cites where each quirk was seen).
 */
import { join } from 'node:path';
import { SmtpIntake } from '../libs/dmarc-reports/application/smtp-intake';
import { ProjectionEngine } from '../libs/projection-engine/projection-engine';
import { DMARC_REPORTS } from '../projections/dmarc-reports.projection';
import { ACCEPTED_QUIRKS, QUIRKS_DIR, REFUSED_QUIRKS } from './support/dmarc-samples';
import { swaks } from './support/report-intake';
import { registerAndLogin, startTestApp, TestApp } from './support/test-app';

const TO = 'dmarc-rua@example.com';
const attachmentType = (file: string): string =>
  file.endsWith('.gz') ? 'application/gzip' : file.endsWith('.zip') ? 'application/zip' : 'text/xml';

describe('report quirks over SMTP', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await startTestApp({ env: { SMTP_PORT: '0' } });
    const account = await registerAndLogin(t.http);
    const res = await t.http.admin('PUT', `/admin/accounts/${account.id}/subscription`, {
      email_auth: { tier: 'enterprise', domains: ['example.com'] },
    });
    expect(res.status).toBe(200);
    port = t.running.app.get(SmtpIntake).port!;
  });
  afterAll(() => t.close());

  const stored = async (reportId: string) => {
    const engine = t.running.app.get(ProjectionEngine);
    await engine.waitFor(await t.running.deps.eventStore.headPosition());
    return engine.readModel(DMARC_REPORTS).find({ report_id: reportId });
  };

  it.each(Object.entries(ACCEPTED_QUIRKS))('accepts %s', async (file, expected) => {
    const path = join(QUIRKS_DIR, file);
    const { code, transcript } = expected.mail
      ? await swaks(port, TO, path)
      : await swaks(port, TO, path, { type: expected.attachAs ?? attachmentType(file), name: file });
    expect(transcript).toMatch(/<- {2}250 2\.0\.0 aggregate report \w+ accepted for example\.com \(1 records\)/);
    expect(code).toBe(0);
    const reports = await stored(expected.reportId);
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatchObject({
      zone: 'example.com',
      org_name: expected.org ?? 'quirks.example',
      record_count: 1,
      message_count: 3,
      source: 'smtp',
    });
  });

  it.each(Object.entries(REFUSED_QUIRKS))('refuses %s with the reason', async (file, expected) => {
    const { code, transcript } = await swaks(port, TO, join(QUIRKS_DIR, file), {
      type: attachmentType(file),
      name: file,
    });
    expect(code).not.toBe(0);
    expect(transcript).toMatch(
      new RegExp(`<\\*\\* 550 5\\.6\\.0 Report refused \\(${expected.reason}\\): .*${expected.message.source}`),
    );
  });
});
