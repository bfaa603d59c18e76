/**
 * The DNSSEC process manager, one process per zone (`pm-dnssec-zone-<zone>`): it keeps the
 * signatures fresh and drives key rollovers and unsigning through their waits. Every step is
 * a timer (a fact in its stream, so it survives a crash or kill -9) whose firing sends a
 * command the decider makes idempotent. Pure: time comes in on the triggers.
 *
 * - Signatures: each refresh schedules the next one `refreshBefore` seconds before expiry.
 * - Rollover: publish wait (DNSKEY TTL + propagation, RFC 7583 Ipub) → the new key signs and
 *   CDS/CDNSKEY ask for its DS → the parent's DS is looked at every `dsCheck` seconds until it
 *   names only the new key → retire wait (the parent's DS TTL + propagation, Iret) → the old
 *   key is removed.
 * - Unsigning: the parent's DS is looked at every `dsCheck` seconds until it is gone.
 */
import type { RecordedEvent } from '../../eventstore/event-store.port';
import type { ProcessManager, ProcessTrigger } from '../../consumers/process-manager';
import type { RolloverPhase } from './dnssec.decider';
import type { DnssecEvent } from './dnssec.events';

export interface DnssecTimings {
  /** Refresh signatures this long before they expire. */
  refreshBeforeSeconds: number;
  /** From publishing a new key to signing with it and asking the parent for its DS. */
  publishWaitSeconds: number;
  /** From the parent's DS naming only the new key to removing the old one. */
  retireWaitSeconds: number;
  /** How often the parent's DS is looked at while waiting for it. */
  dsCheckSeconds: number;
}

export type DnssecFact =
  | { type: 'enabled'; zone_id: string; account_id: number | null }
  | { type: 'refreshed'; expiration: number }
  | { type: 'rollover_started'; new_key_tag: number; at: string }
  | { type: 'key_activated'; key_tag: number; at: string }
  | { type: 'key_retired'; key_tag: number; at: string }
  | { type: 'unsigning'; at: string }
  | { type: 'waiting_over' }
  | { type: 'disabled' }
  | { type: 'zone_deleted' };

export interface DnssecProcessState {
  zoneId: string | null;
  accountId: number | null;
  signed: boolean;
  rolloverTag: number | null;
  waitingForDs: boolean;
  dsChecks: number;
  refreshTimer: string | null;
}

export interface DnssecProcessCommand {
  type: 'RefreshSignatures' | 'ObserveParentDs' | 'AdvanceRollover';
  zone: string;
  zoneId: string;
  accountId: number | null;
  phase?: RolloverPhase;
  at: string;
}

const OBSERVED = [
  'DnssecEnabled',
  'DnssecSignaturesRefreshed',
  'DnssecRolloverStarted',
  'DnssecKeyActivated',
  'DnssecKeyRetired',
  'DnssecUnsigningStarted',
  'DnssecUnsigningCancelled',
  'DnssecRolloverCompleted',
  'DnssecDisabled',
  'ZoneDeleted',
];

const plus = (iso: string, seconds: number) => new Date(new Date(iso).getTime() + seconds * 1000).toISOString();

export function dnssecZoneProcess(
  t: DnssecTimings,
): ProcessManager<DnssecProcessState, DnssecFact, DnssecProcessCommand> {
  return {
    name: 'dnssec-zone',
    observes: OBSERVED,
    observe(event: RecordedEvent) {
      if (event.type === 'ZoneDeleted')
        return { process: (event.data as { name: string }).name, fact: { type: 'zone_deleted' } };
      const e = { type: event.type, data: event.data } as DnssecEvent;
      const process = e.data.zone;
      switch (e.type) {
        case 'DnssecEnabled':
          return { process, fact: { type: 'enabled', zone_id: e.data.zone_id, account_id: e.data.account_id } };
        case 'DnssecSignaturesRefreshed':
          return { process, fact: { type: 'refreshed', expiration: e.data.expiration } };
        case 'DnssecRolloverStarted':
          return { process, fact: { type: 'rollover_started', new_key_tag: e.data.new_key_tag, at: e.data.at } };
        case 'DnssecKeyActivated':
          return { process, fact: { type: 'key_activated', key_tag: e.data.key_tag, at: e.data.at } };
        case 'DnssecKeyRetired':
          return { process, fact: { type: 'key_retired', key_tag: e.data.key_tag, at: e.data.at } };
        case 'DnssecUnsigningStarted':
          return { process, fact: { type: 'unsigning', at: e.data.at } };
        case 'DnssecUnsigningCancelled':
        case 'DnssecRolloverCompleted':
          return { process, fact: { type: 'waiting_over' } };
        case 'DnssecDisabled':
          return { process, fact: { type: 'disabled' } };
        default:
          return null;
      }
    },
    initialState: () => ({
      zoneId: null,
      accountId: null,
      signed: false,
      rolloverTag: null,
      waitingForDs: false,
      dsChecks: 0,
      refreshTimer: null,
    }),
    evolve(s, trigger) {
      if (trigger.kind === 'timer') {
        if (trigger.timerId.startsWith('ds:')) return { ...s, dsChecks: s.dsChecks + 1 };
        if (trigger.timerId === s.refreshTimer) return { ...s, refreshTimer: null };
        return s;
      }
      const f = trigger.fact;
      switch (f.type) {
        case 'enabled':
          return {
            ...s,
            zoneId: f.zone_id,
            accountId: f.account_id,
            signed: true,
            rolloverTag: null,
            waitingForDs: false,
          };
        case 'refreshed':
          return { ...s, refreshTimer: `refresh:${f.expiration}` };
        case 'rollover_started':
          return { ...s, rolloverTag: f.new_key_tag };
        case 'key_activated':
          return f.key_tag === s.rolloverTag ? { ...s, waitingForDs: true } : s;
        case 'key_retired':
          return { ...s, waitingForDs: false };
        case 'unsigning':
          return { ...s, waitingForDs: true };
        case 'waiting_over':
          return { ...s, waitingForDs: false, rolloverTag: null };
        case 'disabled':
        case 'zone_deleted':
          return { ...s, signed: false, waitingForDs: false, rolloverTag: null, refreshTimer: null };
      }
    },
    decide(trigger: ProcessTrigger<DnssecFact>, s) {
      const command = (type: DnssecProcessCommand['type'], at: string, phase?: RolloverPhase) => ({
        type,
        zone: trigger.process,
        zoneId: s.zoneId ?? '',
        accountId: s.accountId,
        at,
        ...(phase ? { phase } : {}),
      });
      const dsTimer = (n: number) => `ds:${n}`;
      if (trigger.kind === 'timer') {
        const id = trigger.timerId;
        const key = `dnssec:${trigger.process}:${s.zoneId}:${id}`;
        if (id.startsWith('refresh:'))
          return s.signed ? [{ type: 'send', commandId: key, command: command('RefreshSignatures', trigger.at) }] : [];
        if (id.startsWith('publish:'))
          return [{ type: 'send', commandId: key, command: command('AdvanceRollover', trigger.at, 'publishing') }];
        if (id.startsWith('retire:'))
          return [{ type: 'send', commandId: key, command: command('AdvanceRollover', trigger.at, 'retiring') }];
        if (id.startsWith('ds:') && s.waitingForDs) {
          return [
            { type: 'send', commandId: key, command: command('ObserveParentDs', trigger.at) },
            { type: 'schedule', timerId: dsTimer(s.dsChecks + 1), dueAt: plus(trigger.at, t.dsCheckSeconds) },
          ];
        }
        return [];
      }
      const f = trigger.fact;
      switch (f.type) {
        case 'refreshed': {
          const due = new Date((f.expiration - t.refreshBeforeSeconds) * 1000).toISOString();
          const cancel =
            s.refreshTimer && s.refreshTimer !== `refresh:${f.expiration}`
              ? [{ type: 'cancel' as const, timerId: s.refreshTimer }]
              : [];
          return [...cancel, { type: 'schedule', timerId: `refresh:${f.expiration}`, dueAt: due }];
        }
        case 'rollover_started':
          return [{ type: 'schedule', timerId: `publish:${f.new_key_tag}`, dueAt: plus(f.at, t.publishWaitSeconds) }];
        case 'key_activated':
          return f.key_tag === s.rolloverTag && !s.waitingForDs
            ? [{ type: 'schedule', timerId: dsTimer(s.dsChecks), dueAt: plus(f.at, t.dsCheckSeconds) }]
            : [];
        case 'unsigning':
          return s.waitingForDs
            ? []
            : [{ type: 'schedule', timerId: dsTimer(s.dsChecks), dueAt: plus(f.at, t.dsCheckSeconds) }];
        case 'key_retired':
          return [
            { type: 'cancel', timerId: dsTimer(s.dsChecks) },
            { type: 'schedule', timerId: `retire:${f.key_tag}`, dueAt: plus(f.at, t.retireWaitSeconds) },
          ];
        case 'waiting_over':
          return [{ type: 'cancel', timerId: dsTimer(s.dsChecks) }];
        case 'disabled':
        case 'zone_deleted':
          return [
            { type: 'cancel', timerId: dsTimer(s.dsChecks) },
            ...(s.refreshTimer ? [{ type: 'cancel' as const, timerId: s.refreshTimer }] : []),
          ];
        default:
          return [];
      }
    },
  };
}
