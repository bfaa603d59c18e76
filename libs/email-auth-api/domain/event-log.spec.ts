import { RecordedEvent } from '../../eventstore/event-store.port';
import { logEntryOf } from './event-log';

const recorded = (type: string, data: unknown): RecordedEvent =>
  ({ id: 'evt-1', streamId: 'emailauth-example.org', revision: 0, type, data, metadata: {}, position: 1n, created: new Date() }) as unknown as RecordedEvent;

describe('logEntryOf', () => {
  const base = { zone: 'example.org', account_id: 7, at: '2026-06-01T10:00:00.000Z' };

  it('logs a wizard advance as dmarc.policy.changed with the seed’s fields', () => {
    const entry = logEntryOf(
      recorded('DmarcPolicyChanged', { ...base, source: 'wizard', from: { policy: 'none', percentage: 100 }, to: { policy: 'quarantine', percentage: 10 }, stage: 'quarantine_partial' }),
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
      data: { source: 'wizard', from: { policy: 'none', percentage: 100 }, to: { policy: 'quarantine', percentage: 10 }, stage: 'quarantine_partial' },
    });
  });

  it('ignores facts that are not log entries', () => {
    expect(logEntryOf(recorded('SpfConfigured', { ...base }))).toBeNull();
  });
});
