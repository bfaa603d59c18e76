/**
 * The SMTP intake's limits over real SMTP sessions (contract §16, issue 24): an oversized
 * message is read but not kept, sessions are capped in total and per client address, and
 * the bytes held across sessions are capped with a temporary refusal. Small limits through
 * the environment keep the messages small.
 */
import { SmtpIntake } from '../libs/dmarc-reports/application/smtp-intake';
import { ProjectionEngine } from '../libs/projection-engine/projection-engine';
import { DMARC_REPORTS } from '../projections/dmarc-reports.projection';
import { generatedAggregateReport } from './support/dmarc-samples';
import { reportMail, SmtpSession } from './support/smtp-client';
import { registerAndLogin, startTestApp, TestApp } from './support/test-app';

const UNPACKED_LIMIT = 256 * 1024;
/** What smtp-intake.ts derives from it: base64 overhead plus 256 KiB of headers. */
const MESSAGE_LIMIT = Math.ceil((UNPACKED_LIMIT * 4) / 3) + 256 * 1024;
const HELD_LIMIT = 300_000;
const STALE_MS = 2000;
const TO = 'dmarc-rua@example.com';

/** Until `check` holds (the server counts a closed session in the next turn of its loop). */
async function eventually(check: () => boolean, timeoutMs = 3000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check() && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
}

describe('SMTP intake limits (contract §16)', () => {
  let t: TestApp;
  let port: number;
  let intake: SmtpIntake;
  const opened: SmtpSession[] = [];
  const open = async (from = '127.0.0.1') => {
    const { session, greeting } = await SmtpSession.open(port, from);
    opened.push(session);
    return { session, greeting };
  };
  const reportsWithId = async (reportId: string) => {
    const engine = t.running.app.get(ProjectionEngine);
    await engine.waitFor(await t.running.deps.eventStore.headPosition());
    return engine.readModel(DMARC_REPORTS).countDocuments({ report_id: reportId });
  };

  beforeAll(async () => {
    t = await startTestApp({
      env: {
        SMTP_PORT: '0',
        REPORT_MAX_UNPACKED_BYTES: String(UNPACKED_LIMIT),
        SMTP_MAX_CLIENTS: '5',
        SMTP_MAX_CLIENTS_PER_IP: '3',
        SMTP_MAX_HELD_BYTES: String(HELD_LIMIT),
        SMTP_STALE_SESSION_MS: String(STALE_MS),
      },
    });
    const account = await registerAndLogin(t.http);
    const res = await t.http.admin('PUT', `/admin/accounts/${account.id}/subscription`, {
      email_auth: { tier: 'enterprise', domains: ['example.com'] },
    });
    expect(res.status).toBe(200);
    intake = t.running.app.get(SmtpIntake);
    port = intake.port!;
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((s) => s.close()));
    await eventually(() => intake.heldBytes === 0 && intake.openSessions === 0);
  });
  afterAll(() => t.close());

  it('reads a message a little over the limit to its end without keeping it, answers 552 and stores nothing', async () => {
    // Within the megabyte past the limit that is still read to the end (then the sender is cut off, below).
    const mail = reportMail(TO, generatedAggregateReport(8000, { reportId: 'smtp-oversize' })).subarray(
      0,
      MESSAGE_LIMIT + 512 * 1024,
    );
    const { session } = await open();
    await session.begin(TO);
    let mostHeld = 0;
    for (let at = 0; at < mail.length; at += 64 * 1024) {
      await session.send(mail.subarray(at, at + 64 * 1024));
      await new Promise((r) => setImmediate(r));
      mostHeld = Math.max(mostHeld, intake.heldBytes);
    }
    const answer = await session.finish();
    expect(answer).toMatch(/^552 5\.3\.4 Message larger than \d+ bytes/);
    // Before the fix every chunk was kept to the end: here at most the limit, then nothing.
    expect(mostHeld).toBeLessThanOrEqual(MESSAGE_LIMIT);
    expect(intake.heldBytes).toBe(0);
    expect(await reportsWithId('smtp-oversize')).toBe(0);
    // The session stays usable: a report in limits is taken next.
    await session.begin(TO);
    await session.send(reportMail(TO, generatedAggregateReport(3, { reportId: 'smtp-after-oversize' })));
    expect(await session.finish()).toMatch(/^250 2\.0\.0 aggregate report \w+ accepted/);
    expect(await reportsWithId('smtp-after-oversize')).toBe(1);
  });

  it('cuts off a sender that streams on far past the limit: 552 at once, then the connection is closed', async () => {
    const mail = reportMail(TO, generatedAggregateReport(8000, { reportId: 'smtp-far-over' }));
    expect(mail.length).toBeGreaterThan(MESSAGE_LIMIT + 1024 * 1024);
    const { session } = await open();
    await session.begin(TO);
    for (let at = 0; at < mail.length && !session.closed; at += 64 * 1024)
      await session.send(mail.subarray(at, at + 64 * 1024));
    // The answer came while the message was still being sent, not after its end.
    expect(await session.reply()).toMatch(/^552 5\.3\.4 Message larger than \d+ bytes, closing connection/);
    await eventually(() => session.closed);
    expect(session.closed).toBe(true);
    await eventually(() => intake.heldBytes === 0 && intake.openSessions === 0);
    expect(intake.heldBytes).toBe(0);
    expect(intake.openSessions).toBe(0);
    expect(await reportsWithId('smtp-far-over')).toBe(0);
  });

  it('caps sessions per client address (421) and in total (421 while no session is stalled)', async () => {
    for (let i = 0; i < 3; i++) expect((await open('127.0.0.1')).greeting).toMatch(/^220 /);
    const fourth = await open('127.0.0.1');
    expect(fourth.greeting).toMatch(/^421 4\.7\.0 Too many connections from your address/);
    // Another address still gets in, up to the total of 5 open sessions.
    expect((await open('127.0.0.2')).greeting).toMatch(/^220 /);
    expect((await open('127.0.0.3')).greeting).toMatch(/^220 /);
    expect((await open('127.0.0.4')).greeting).toMatch(/^421 .*Too many connected clients/);
    // A session that ends gives its place back.
    await opened[0].close();
    await new Promise((r) => setTimeout(r, 100));
    const again = await open('127.0.0.1');
    expect(again.greeting).toMatch(/^220 /);
    expect(await again.session.command('EHLO reporter.example')).toMatch(/^250 /);
  });

  it('gives the place of a session stalled for long to a new one when every place is taken', async () => {
    // Five sessions (the total) from five addresses, each trickling a command it never ends.
    const stalled: SmtpSession[] = [];
    for (let i = 0; i < 5; i++) {
      const { session, greeting } = await open(`127.0.0.${10 + i}`);
      expect(greeting).toMatch(/^220 /);
      await session.send('EH');
      stalled.push(session);
    }
    expect((await open('127.0.0.20')).greeting).toMatch(/^421 .*Too many connected clients/);
    await new Promise((r) => setTimeout(r, STALE_MS + 500));
    for (const s of stalled) await s.send('L');
    // Bytes are not progress: the stalest session is closed and the new one served.
    const late = await open('127.0.0.21');
    expect(late.greeting).toMatch(/^220 /);
    await eventually(() => stalled.filter((s) => s.closed).length === 1);
    expect(stalled.filter((s) => s.closed)).toEqual([stalled[0]]);
    await late.session.begin(TO);
    await late.session.send(reportMail(TO, generatedAggregateReport(2, { reportId: 'smtp-after-stalled' })));
    expect(await late.session.finish()).toMatch(/^250 2\.0\.0 aggregate report \w+ accepted/);
    expect(await reportsWithId('smtp-after-stalled')).toBe(1);
  });

  it('refuses for now (452) a message that would pass the bytes held across sessions, and takes it once there is room', async () => {
    const first = reportMail(TO, generatedAggregateReport(400, { reportId: 'smtp-held-a' }));
    const second = reportMail(TO, generatedAggregateReport(300, { reportId: 'smtp-held-b' }));
    expect(first.length).toBeLessThan(HELD_LIMIT);
    expect(second.length).toBeLessThan(HELD_LIMIT);
    expect(first.length + second.length).toBeGreaterThan(HELD_LIMIT);
    const a = (await open()).session;
    const b = (await open()).session;
    await a.begin(TO);
    await a.send(first);
    await eventually(() => intake.heldBytes >= first.length);
    await b.begin(TO);
    await b.send(second);
    expect(await b.finish()).toMatch(/^452 4\.3\.1 /);
    // Whole: the message was held in several blocks, and every record of it was read.
    expect(await a.finish()).toMatch(/^250 2\.0\.0 aggregate report \w+ accepted for example\.com \(400 records\)/);
    await eventually(() => intake.heldBytes === 0);
    await b.begin(TO);
    await b.send(second);
    expect(await b.finish()).toMatch(/^250 2\.0\.0 aggregate report \w+ accepted for example\.com \(300 records\)/);
    expect(await reportsWithId('smtp-held-a')).toBe(1);
    expect(await reportsWithId('smtp-held-b')).toBe(1);
  });
});
