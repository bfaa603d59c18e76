import { ProcessFact, ProcessTrigger, processStreamDecider } from '../../consumers/process-manager';
import { processSpecFor } from '../../shared/testing/process-manager-spec';
import { DnssecFact, DnssecProcessCommand, dnssecZoneProcess } from './dnssec.process-manager';

const pm = dnssecZoneProcess({
  refreshBeforeSeconds: 7 * 86400,
  publishWaitSeconds: 7200,
  retireWaitSeconds: 90000,
  dsCheckSeconds: 3600,
});
type Fact = ProcessFact<DnssecFact, DnssecProcessCommand>;
const ZONE = 'example.com';
const T0 = '2026-01-01T00:00:00.000Z';
const expiration = Date.parse(T0) / 1000 + 14 * 86400;

let n = 0;
const observed = (fact: DnssecFact): Fact => ({
  type: 'ProcessEventObserved',
  data: { process: ZONE, event_id: `e${++n}`, fact },
});
const spec = processSpecFor(processStreamDecider(pm));
/** The decisions a trigger leads to, each observed event under an id not seen before. */
const given = (facts: Fact[]) => ({
  when: (trigger: ProcessTrigger<DnssecFact>) => spec.given(facts).decisions(trigger, `new${++n}`),
});
const on = (fact: DnssecFact): ProcessTrigger<DnssecFact> => ({ kind: 'observed', process: ZONE, fact });
const fire = (timerId: string, at: string): ProcessTrigger<DnssecFact> => ({
  kind: 'timer',
  process: ZONE,
  timerId,
  at,
});
const scheduled = (timer_id: string, due_at: string): Fact => ({
  type: 'ProcessTimerScheduled',
  data: { timer_id, due_at },
});
const enabled: Fact[] = [
  observed({ type: 'enabled', zone_id: 'z1', account_id: 7 }),
  observed({ type: 'refreshed', expiration }),
  scheduled(`refresh:${expiration}`, '2026-01-08T00:00:00.000Z'),
];

describe('dnssec zone process manager', () => {
  it('schedules the signature refresh a week before expiry, and refreshes when it fires', () => {
    expect(given(enabled.slice(0, 1)).when(on({ type: 'refreshed', expiration }))).toEqual([
      scheduled(`refresh:${expiration}`, '2026-01-08T00:00:00.000Z'),
    ]);
    expect(given(enabled).when(fire(`refresh:${expiration}`, '2026-01-08T00:00:01.000Z'))).toEqual([
      {
        type: 'ProcessCommandIssued',
        data: {
          command_id: `dnssec:${ZONE}:z1:refresh:${expiration}`,
          command: {
            type: 'RefreshSignatures',
            zone: ZONE,
            zoneId: 'z1',
            accountId: 7,
            at: '2026-01-08T00:00:01.000Z',
          },
        },
      },
    ]);
  });

  it('walks a rollover: publish wait, then DS checks every interval, then the retire wait', () => {
    const started = [
      ...enabled,
      observed({ type: 'rollover_started', new_key_tag: 2, at: T0 }),
      scheduled('publish:2', '2026-01-01T02:00:00.000Z'),
    ];
    expect(given(enabled).when(on({ type: 'rollover_started', new_key_tag: 2, at: T0 }))).toEqual([
      scheduled('publish:2', '2026-01-01T02:00:00.000Z'),
    ]);
    expect(given(started).when(fire('publish:2', '2026-01-01T02:00:00.000Z'))[0]).toMatchObject({
      type: 'ProcessCommandIssued',
      data: { command: { type: 'AdvanceRollover', phase: 'publishing' } },
    });
    const activated = [
      ...started,
      observed({ type: 'key_activated', key_tag: 2, at: '2026-01-01T02:00:00.000Z' }),
      scheduled('ds:0', '2026-01-01T03:00:00.000Z'),
    ];
    expect(given(started).when(on({ type: 'key_activated', key_tag: 2, at: '2026-01-01T02:00:00.000Z' }))).toEqual([
      scheduled('ds:0', '2026-01-01T03:00:00.000Z'),
    ]);
    const check = given(activated).when(fire('ds:0', '2026-01-01T03:00:00.000Z'));
    expect(check).toEqual([
      {
        type: 'ProcessCommandIssued',
        data: { command_id: `dnssec:${ZONE}:z1:ds:0`, command: expect.objectContaining({ type: 'ObserveParentDs' }) },
      },
      scheduled('ds:1', '2026-01-01T04:00:00.000Z'),
    ]);
    const afterCheck = [
      ...activated,
      { type: 'ProcessTimerFired', data: { process: ZONE, timer_id: 'ds:0', at: '2026-01-01T03:00:00.000Z' } } as Fact,
      ...check,
    ];
    expect(given(afterCheck).when(on({ type: 'key_retired', key_tag: 1, at: '2026-01-01T05:00:00.000Z' }))).toEqual([
      { type: 'ProcessTimerCancelled', data: { timer_id: 'ds:1' } },
      scheduled('retire:1', '2026-01-02T06:00:00.000Z'),
    ]);
  });

  it('checks the parent DS while unsigning and stops when the zone is unsigned or deleted', () => {
    const unsigning = [
      ...enabled,
      observed({ type: 'unsigning', at: T0 }),
      scheduled('ds:0', '2026-01-01T01:00:00.000Z'),
    ];
    expect(given(enabled).when(on({ type: 'unsigning', at: T0 }))).toEqual([
      scheduled('ds:0', '2026-01-01T01:00:00.000Z'),
    ]);
    expect(given(unsigning).when(on({ type: 'disabled' }))).toEqual([
      { type: 'ProcessTimerCancelled', data: { timer_id: 'ds:0' } },
      { type: 'ProcessTimerCancelled', data: { timer_id: `refresh:${expiration}` } },
    ]);
    expect(given(enabled).when(on({ type: 'zone_deleted' }))).toEqual([
      { type: 'ProcessTimerCancelled', data: { timer_id: `refresh:${expiration}` } },
    ]);
  });
});
