import { nightlySeries, StreamEvent, zoneEventLog } from './zone-history';

const base = (account_id: number, at: string) => ({ zone: 'z.test', account_id, at });
const night = (account_id: number, n: string, messages: number, passing: number, days: number): StreamEvent => ({
  type: 'DmarcStageMetricsRecorded',
  data: {
    ...base(account_id, `${n}T02:00:00Z`),
    night: n,
    window_from: '',
    window_to: '',
    messages,
    passing,
    pass_rate: Math.round((passing / messages) * 1000) / 10,
    days_at_stage: days,
  },
  metadata: { actor: 'system:dmarc-nightly' },
});

describe('zone history views', () => {
  const events: StreamEvent[] = [
    // An earlier owner of the name: never shown to the new one.
    {
      type: 'DmarcWizardStarted',
      data: { ...base(1, '2026-01-01T00:00:00Z'), stage: 'monitoring', policy: 'none', percentage: 100 },
    },
    night(1, '2026-01-02', 10, 1, 1),
    {
      type: 'DmarcConfigured',
      data: { ...base(2, '2026-03-01T00:00:00Z'), dmarc: { policy: 'none' } },
      metadata: { actor: 'user:alice' },
    },
    {
      type: 'DmarcWizardStarted',
      data: { ...base(2, '2026-03-01T00:01:00Z'), stage: 'monitoring', policy: 'none', percentage: 100 },
    },
    night(2, '2026-03-02', 100, 99, 1),
    night(2, '2026-03-03', 200, 196, 2),
    {
      type: 'DmarcStageAdvanced',
      data: {
        ...base(2, '2026-03-04T09:00:00Z'),
        from_stage: 'monitoring',
        to_stage: 'quarantine_partial',
        policy: 'quarantine',
        percentage: 25,
      },
    },
    night(2, '2026-03-05', 50, 50, 1),
  ];

  it('given the stream, the nightly series is the current owner’s nights with their stage, oldest first', () => {
    expect(nightlySeries(events, 2)).toEqual([
      { night: '2026-03-02', stage: 'monitoring', messages: 100, passing: 99, pass_rate: 99, days_at_stage: 1 },
      { night: '2026-03-03', stage: 'monitoring', messages: 200, passing: 196, pass_rate: 98, days_at_stage: 2 },
      { night: '2026-03-05', stage: 'quarantine_partial', messages: 50, passing: 50, pass_rate: 100, days_at_stage: 1 },
    ]);
    expect(nightlySeries([], 2)).toEqual([]);
  });

  it('the event log is newest first, limited, with the actor and without the envelope fields', () => {
    const log = zoneEventLog(events, 2, 3);
    expect(log.map((e) => e.type)).toEqual([
      'DmarcStageMetricsRecorded',
      'DmarcStageAdvanced',
      'DmarcStageMetricsRecorded',
    ]);
    expect(log[1]).toEqual({
      type: 'DmarcStageAdvanced',
      occurred_at: '2026-03-04T09:00:00Z',
      actor: null,
      data: { from_stage: 'monitoring', to_stage: 'quarantine_partial', policy: 'quarantine', percentage: 25 },
    });
    expect(zoneEventLog(events, 2, 100)).toHaveLength(6);
    expect(zoneEventLog(events, 2, 100).at(-1)).toMatchObject({ type: 'DmarcConfigured', actor: 'user:alice' });
  });
});
