import { AlertClearObserved, AlertRaised } from '../libs/email-auth-alerts/domain/alert.events';
import { DmarcPolicyChanged } from '../libs/email-auth/domain/email-auth.events';
import { EventLogSource } from '../libs/email-auth-api/domain/event-log';
import { project } from '../libs/projection-engine/projection-harness';
import { EMAIL_AUTH_EVENTS, emailAuthEventsProjection } from './email-auth-events.projection';
import { tlsReportReceived } from './report-events.fixture';

const policyChanged: DmarcPolicyChanged = {
  type: 'DmarcPolicyChanged',
  data: {
    zone: 'example.com',
    account_id: 7,
    at: '2026-03-01T00:00:00.000Z',
    source: 'wizard',
    from: { policy: 'none', percentage: 100 },
    to: { policy: 'quarantine', percentage: 10 },
    stage: 'quarantine_partial',
  },
};
const alertRaised: AlertRaised = {
  type: 'AlertRaised',
  data: {
    account_id: 7,
    zone: 'example.com',
    rule: 'tls_failures',
    observed: '2026-03-01',
    severity: 'warning',
    occurred_at: '2026-03-06T00:00:00.000Z',
    figures: { day: '2026-03-01', sessions: 22, successful_sessions: 20, failed_sessions: 2, failed_ratio: 0.0909 },
    threshold: { max_failed_ratio: 0.05 },
  },
};
// Streak bookkeeping is not a log entry; the engine would not deliver it, the harness filters it the same way.
const clearObserved: AlertClearObserved = {
  type: 'AlertClearObserved',
  data: { account_id: 7, zone: 'example.com', rule: 'tls_failures', observed: '2026-03-02', clear_streak: 1 },
};

describe('email_auth_events projection', () => {
  it('given a policy change, a TLS report and an alert: one log entry each, keyed by the source event; replaying changes nothing', async () => {
    const h = await project<EventLogSource | AlertClearObserved>(emailAuthEventsProjection, [
      policyChanged,
      tlsReportReceived('t1', '2026-03-01T00:00:00.000Z'),
      alertRaised,
      clearObserved,
    ]);
    // Ids are the source events' ids (random here), so entries are compared in log order.
    const docs = (await h.documents(EMAIL_AUTH_EVENTS)).sort((x, y) => x.occurred_at.localeCompare(y.occurred_at));
    expect(docs.map((d) => [d.type, d.occurred_at, d.domain, d.account_id, d.severity, d.title])).toEqual([
      [
        'dmarc.policy.changed',
        '2026-03-01T00:00:00.000Z',
        'example.com',
        7,
        'info',
        'DMARC policy of example.com changed from none to quarantine (10%)',
      ],
      [
        'tls.report.received',
        '2026-03-05T08:00:00.000Z',
        'example.com',
        7,
        'info',
        'TLS report for example.com from Microsoft',
      ],
      [
        'alert.raised',
        '2026-03-06T00:00:00.000Z',
        'example.com',
        7,
        'warning',
        expect.stringContaining('TLS failures for example.com'),
      ],
    ]);
    expect(docs[1].data).toMatchObject({
      report_id: 'id-t1',
      successful_sessions: 20,
      failed_sessions: 2,
      policy_count: 1,
    });
    for (const d of docs) expect(d._id).toBe(d.id);
    await h.replayed();
    expect(await h.documents(EMAIL_AUTH_EVENTS)).toHaveLength(3);
    expect((await h.documents(EMAIL_AUTH_EVENTS)).sort((x, y) => x.occurred_at.localeCompare(y.occurred_at))).toEqual(
      docs,
    );
    await h.close();
  });
});
