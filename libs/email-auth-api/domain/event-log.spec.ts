import { LoggedFact, logEntryOf } from './event-log';

// Any type, as the log also guards against facts it does not list.
const recorded = (type: string, data: unknown): LoggedFact =>
  ({
    id: 'evt-1',
    streamId: 'emailauth-example.org',
    revision: 0,
    type,
    data,
    metadata: {},
    position: 1n,
    created: new Date(),
  }) as unknown as LoggedFact;

describe('logEntryOf', () => {
  const base = { zone: 'example.org', account_id: 7, at: '2026-06-01T10:00:00.000Z' };

  it('logs a wizard advance as dmarc.policy.changed with the seed’s fields', () => {
    const entry = logEntryOf(
      recorded('DmarcPolicyChanged', {
        ...base,
        source: 'wizard',
        from: { policy: 'none', percentage: 100 },
        to: { policy: 'quarantine', percentage: 10 },
        stage: 'quarantine_partial',
      }),
    );
    expect(entry).toEqual({
      _id: 'evt-1',
      id: 'evt-1',
      account_id: 7,
      type: 'dmarc.policy.changed',
      occurred_at: base.at,
      domain: 'example.org',
      severity: 'info',
      title: 'DMARC policy of example.org changed from none to quarantine (10%)',
      data: {
        source: 'wizard',
        from: { policy: 'none', percentage: 100 },
        to: { policy: 'quarantine', percentage: 10 },
        stage: 'quarantine_partial',
      },
    });
  });

  it('ignores facts that are not log entries', () => {
    expect(logEntryOf(recorded('SpfConfigured', { ...base }))).toBeNull();
  });

  const received = {
    zone: 'example.org',
    account_id: 7,
    received_at: '2026-06-01T10:00:00.000Z',
    source: 'smtp',
    report_key: 'k1',
  };

  it('logs an accepted aggregate report as dmarc.report.received: reporter, report id, period and counts', () => {
    const entry = logEntryOf(
      recorded('DmarcAggregateReportReceived', {
        ...received,
        org_name: 'google.com',
        email: 'noreply-dmarc-support@google.com',
        report_id: 'r-42',
        begin: '2026-05-31T00:00:00.000Z',
        end: '2026-05-31T23:59:59.000Z',
        policy: { domain: 'example.org' },
        record_count: 3,
        message_count: 200,
        passing_count: 150,
        chunk_count: 1,
      }),
    );
    expect(entry).toMatchObject({
      id: 'evt-1',
      account_id: 7,
      type: 'dmarc.report.received',
      occurred_at: received.received_at,
      domain: 'example.org',
      severity: 'info',
    });
    expect(entry!.title).toBe('DMARC aggregate report for example.org from google.com');
    expect(entry!.data).toEqual({
      kind: 'aggregate',
      reporter: 'google.com',
      report_id: 'r-42',
      begin: '2026-05-31T00:00:00.000Z',
      end: '2026-05-31T23:59:59.000Z',
      record_count: 3,
      message_count: 200,
      passing_count: 150,
      pass_rate: 0.75,
      source: 'smtp',
    });
  });

  it('logs a failure report without its sealed subject, addresses or message ids', () => {
    const entry = logEntryOf(
      recorded('DmarcFailureReportReceived', {
        ...received,
        reporter: 'abuse@mx.example.net',
        reported_domain: 'example.org',
        feedback_type: 'auth-failure',
        arrival_date: '2026-05-31T08:00:00.000Z',
        source_ip: '192.0.2.1',
        auth_failure: 'dmarc',
        delivery_result: 'reject',
        authentication_results: 'mx; dmarc=fail header.from=example.org',
        dkim_domain: 'example.org',
        dkim_selector: 's1',
        mail_from_domain: 'example.org',
        rcpt_domain: 'example.net',
        subject_sealed: 'sealed-subject',
        mail_from_sealed: 'sealed-from',
      }),
    );
    expect(entry).toMatchObject({ type: 'dmarc.report.received', severity: 'warning', domain: 'example.org' });
    expect(entry!.data).toEqual({
      kind: 'failure',
      reporter: 'abuse@mx.example.net',
      feedback_type: 'auth-failure',
      auth_failure: 'dmarc',
      arrival_date: '2026-05-31T08:00:00.000Z',
      source_ip: '192.0.2.1',
      delivery_result: 'reject',
      source: 'smtp',
    });
    expect(JSON.stringify(entry)).not.toMatch(/sealed|k1/);
  });

  it('logs a TLS report as tls.report.received with its session counts', () => {
    const entry = logEntryOf(
      recorded('TlsReportReceived', {
        ...received,
        org_name: 'Microsoft',
        contact_info: 'tlsrpt@microsoft.com',
        report_id: 't-1',
        begin: '2026-05-31T00:00:00.000Z',
        end: '2026-05-31T23:59:59.000Z',
        policies: [{}, {}],
        successful_sessions: 95,
        failed_sessions: 5,
      }),
    );
    expect(entry).toMatchObject({
      type: 'tls.report.received',
      severity: 'info',
      title: 'TLS report for example.org from Microsoft',
    });
    expect(entry!.data).toEqual({
      reporter: 'Microsoft',
      report_id: 't-1',
      begin: '2026-05-31T00:00:00.000Z',
      end: '2026-05-31T23:59:59.000Z',
      policy_count: 2,
      successful_sessions: 95,
      failed_sessions: 5,
      failure_rate: 0.05,
      source: 'smtp',
    });
  });

  it('logs alert facts as alert.raised / alert.resolved with rule, figures and threshold, not the streak bookkeeping', () => {
    const alert = {
      account_id: 7,
      zone: 'example.org',
      rule: 'tls_failures',
      observed: '2026-05-31',
      severity: 'warning',
      threshold: { max_failed_ratio: 0.05 },
    };
    const figures = {
      day: '2026-05-31',
      sessions: 100,
      successful_sessions: 90,
      failed_sessions: 10,
      failed_ratio: 0.1,
    };
    const raised = logEntryOf(recorded('AlertRaised', { ...alert, occurred_at: '2026-06-02T00:00:00.000Z', figures }));
    expect(raised).toMatchObject({
      type: 'alert.raised',
      severity: 'warning',
      occurred_at: '2026-06-02T00:00:00.000Z',
      title: 'TLS failures for example.org reached 10% of 100 sessions (2026-05-31)',
      data: { rule: 'tls_failures', observed: '2026-05-31', figures, threshold: { max_failed_ratio: 0.05 } },
    });
    const resolved = logEntryOf(
      recorded('AlertResolved', {
        ...alert,
        occurred_at: '2026-06-03T00:00:00.000Z',
        raised_at: '2026-06-02T00:00:00.000Z',
        figures,
      }),
    );
    expect(resolved).toMatchObject({
      type: 'alert.resolved',
      data: { rule: 'tls_failures', raised_at: '2026-06-02T00:00:00.000Z' },
    });
    expect(logEntryOf(recorded('AlertClearObserved', { ...alert, clear_streak: 1 }))).toBeNull();
  });
});
