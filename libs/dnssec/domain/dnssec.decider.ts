/**
 * The DNSSEC life of one zone (stream `dnssec-<zone>`): turning signing on and off, its
 * keys' states, the signature window, CDS/CDNSKEY and what the parent's DS was seen to be.
 * Pure: keys are generated (and sealed), windows computed and the parent's DS looked up by
 * the handlers; this decides which events follow.
 *
 * One combined signing key (CSK, flags 257) signs the whole zone. A rollover pre-publishes
 * the new key, then signs with both, asks the parent for the new DS through CDS/CDNSKEY, and
 * removes the old key once the parent's DS names only the new one and the old DS has left
 * caches (see docs/dnssec.md for the timings).
 */
import { Decider, unreachable } from '../../shared/decider';
import { conflict, validationFailed } from '../../shared/errors';
import { DnssecEvent, KeyRole, KeyState } from './dnssec.events';

export type SigningState = 'unsigned' | 'signed' | 'rolling' | 'unsigning';
export const ALGORITHMS = [13, 15];
export const DEFAULT_ALGORITHM = 13;

export interface DnssecKey {
  key_tag: number;
  algorithm: number;
  flags: number;
  role: KeyRole;
  state: KeyState;
  public_key: string;
  private_key_sealed: string;
  created_at: string;
}

export type RolloverPhase = 'publishing' | 'awaiting_ds' | 'retiring';

export interface DnssecState {
  /** The zone incarnation the state belongs to; a command for another one starts afresh. */
  zoneId: string | null;
  accountId: number | null;
  state: SigningState;
  algorithm: number;
  keys: DnssecKey[];
  window: { inception: number; expiration: number } | null;
  /** CDS/CDNSKEY served: none, the delete form, or for these key tags. */
  cds: 'none' | 'delete' | number[];
  parentDs: number[] | null;
  rollover: { oldTag: number; newTag: number; phase: RolloverPhase } | null;
}

export interface NewKey {
  key_tag: number;
  algorithm: number;
  flags: number;
  public_key: string;
  private_key_sealed: string;
}

export interface SignatureWindow {
  inception: number;
  expiration: number;
}

interface ZoneRef {
  zone: string;
  zoneId: string;
  at: string;
}

export type DnssecCommand =
  | (ZoneRef & {
      type: 'EnableDnssec';
      accountId: number | null;
      algorithm: number;
      key: NewKey;
      window: SignatureWindow;
    })
  /** `parentDs`: the key tags the parent's DS names now, null when the lookup failed. */
  | (ZoneRef & { type: 'DisableDnssec'; parentDs: number[] | null })
  | (ZoneRef & { type: 'ObserveParentDs'; parentDs: number[] | null })
  | (ZoneRef & { type: 'RefreshSignatures'; window: SignatureWindow })
  | (ZoneRef & { type: 'StartRollover'; key: NewKey })
  /** A rollover wait is over: activate the published key (and ask for its DS), or remove the retired one. */
  | (ZoneRef & { type: 'AdvanceRollover'; phase: RolloverPhase });

export const DNSSEC_ROLLOVER_BUSY = 'A key rollover is already under way';

const initial = (): DnssecState => ({
  zoneId: null,
  accountId: null,
  state: 'unsigned',
  algorithm: DEFAULT_ALGORITHM,
  keys: [],
  window: null,
  cds: 'none',
  parentDs: null,
  rollover: null,
});

const setKey = (s: DnssecState, tag: number, state: KeyState): DnssecState => ({
  ...s,
  keys: s.keys.map((k) => (k.key_tag === tag ? { ...k, state } : k)),
});

/** Keys the zone serves in DNSKEY (every state but removed). */
export const servedKeys = (s: DnssecState): DnssecKey[] => s.keys.filter((k) => k.state !== 'removed');
/** Keys that sign: active ones, and retired ones until removed (old DS may still be cached). */
export const signingKeys = (s: DnssecState): DnssecKey[] =>
  s.keys.filter((k) => k.state === 'active' || k.state === 'retired');

export const dnssecDecider: Decider<DnssecState, DnssecCommand, DnssecEvent> = {
  initialState: initial,

  evolve(state, event) {
    const next = evolveOnce(state, event);
    return next.rollover ? { ...next, rollover: { ...next.rollover, phase: rolloverPhase(next)! } } : next;
  },
  decide: (command: DnssecCommand, state: DnssecState) => decide(command, state),
};

function evolveOnce(state: DnssecState, event: DnssecEvent): DnssecState {
  switch (event.type) {
    case 'DnssecEnabled':
      return {
        ...initial(),
        zoneId: event.data.zone_id,
        accountId: event.data.account_id,
        algorithm: event.data.algorithm,
        state: 'signed',
      };
    case 'DnssecKeyGenerated': {
      const k = event.data;
      const key: DnssecKey = {
        key_tag: k.key_tag,
        algorithm: k.algorithm,
        flags: k.flags,
        role: k.role,
        state: 'published',
        public_key: k.public_key,
        private_key_sealed: k.private_key_sealed,
        created_at: k.at,
      };
      return { ...state, keys: [...state.keys, key] };
    }
    case 'DnssecKeyPublished':
      return setKey(state, event.data.key_tag, 'published');
    case 'DnssecKeyActivated':
      return setKey(state, event.data.key_tag, 'active');
    case 'DnssecKeyRetired':
      return setKey(state, event.data.key_tag, 'retired');
    case 'DnssecKeyRemoved':
      return setKey(state, event.data.key_tag, 'removed');
    case 'DnssecSignaturesRefreshed':
      return { ...state, window: { inception: event.data.inception, expiration: event.data.expiration } };
    case 'DnssecCdsPublished':
      return { ...state, cds: event.data.delete ? 'delete' : event.data.key_tags };
    case 'DnssecCdsWithdrawn':
      return { ...state, cds: 'none' };
    case 'DnssecParentDsSeen':
      return { ...state, parentDs: event.data.key_tags };
    case 'DnssecRolloverStarted':
      return {
        ...state,
        state: 'rolling',
        rollover: { oldTag: event.data.old_key_tag, newTag: event.data.new_key_tag, phase: 'publishing' },
      };
    case 'DnssecRolloverCompleted':
      return { ...state, state: 'signed', rollover: null };
    case 'DnssecUnsigningStarted':
      return { ...state, state: 'unsigning' };
    case 'DnssecUnsigningCancelled':
      return { ...state, state: state.rollover ? 'rolling' : 'signed' };
    case 'DnssecDisabled':
      return {
        ...state,
        state: 'unsigned',
        keys: state.keys.map((k) => ({ ...k, state: 'removed' as const })),
        window: null,
        cds: 'none',
        rollover: null,
      };
    default:
      return unreachable(event);
  }
}

function decide(command: DnssecCommand, current: DnssecState): DnssecEvent[] {
  const state = current.zoneId === command.zoneId ? current : initial();
  const base = { zone: command.zone, at: command.at };
  switch (command.type) {
    case 'EnableDnssec': {
      if (!ALGORITHMS.includes(command.algorithm))
        throw validationFailed('algorithm must be 13 (ECDSAP256SHA256) or 15 (ED25519)');
      if (state.state === 'unsigning') {
        if (command.algorithm !== state.algorithm)
          throw conflict(
            'dnssec_algorithm_change',
            `The zone is signed with algorithm ${state.algorithm}; an algorithm change is not supported`,
          );
        const cds: DnssecEvent[] = [{ type: 'DnssecCdsWithdrawn', data: base }];
        return [{ type: 'DnssecUnsigningCancelled', data: base }, ...cds];
      }
      if (state.state !== 'unsigned') {
        if (command.algorithm !== state.algorithm)
          throw conflict(
            'dnssec_algorithm_change',
            `The zone is signed with algorithm ${state.algorithm}; an algorithm change is not supported`,
          );
        return [];
      }
      const k = command.key;
      return [
        {
          type: 'DnssecEnabled',
          data: { ...base, zone_id: command.zoneId, account_id: command.accountId, algorithm: command.algorithm },
        },
        {
          type: 'DnssecKeyGenerated',
          data: {
            ...base,
            key_tag: k.key_tag,
            algorithm: k.algorithm,
            flags: k.flags,
            role: 'csk',
            public_key: k.public_key,
            private_key_sealed: k.private_key_sealed,
          },
        },
        // A zone the parent has no DS for is not validated yet: its first key can sign at once.
        { type: 'DnssecKeyPublished', data: { ...base, key_tag: k.key_tag } },
        { type: 'DnssecKeyActivated', data: { ...base, key_tag: k.key_tag } },
        { type: 'DnssecSignaturesRefreshed', data: { ...base, ...command.window } },
      ];
    }
    case 'DisableDnssec': {
      if (state.state === 'unsigned') return [];
      const events: DnssecEvent[] = [];
      if (state.state !== 'unsigning') {
        events.push(
          { type: 'DnssecUnsigningStarted', data: base },
          { type: 'DnssecCdsPublished', data: { ...base, key_tags: [], delete: true } },
        );
      }
      return [...events, ...parentDsEvents(state, command.parentDs, base, true)];
    }
    case 'ObserveParentDs':
      if (state.state === 'unsigned') return [];
      return parentDsEvents(state, command.parentDs, base, state.state === 'unsigning');
    case 'RefreshSignatures':
      if (state.state === 'unsigned') return [];
      if (state.window && command.window.expiration <= state.window.expiration) return [];
      return [{ type: 'DnssecSignaturesRefreshed', data: { ...base, ...command.window } }];
    case 'StartRollover': {
      if (state.state === 'unsigned') throw conflict('dnssec_not_enabled', 'DNSSEC is not enabled for this zone');
      if (state.state === 'unsigning') throw conflict('dnssec_unsigning', 'DNSSEC is being turned off for this zone');
      if (state.rollover) throw conflict('dnssec_rollover_in_progress', DNSSEC_ROLLOVER_BUSY);
      const old = signingKeys(state)[0];
      const k = command.key;
      if (state.keys.some((x) => x.key_tag === k.key_tag))
        throw conflict('dnssec_key_tag_taken', 'The new key collides with a key tag of the zone; try again');
      return [
        { type: 'DnssecRolloverStarted', data: { ...base, old_key_tag: old.key_tag, new_key_tag: k.key_tag } },
        {
          type: 'DnssecKeyGenerated',
          data: {
            ...base,
            key_tag: k.key_tag,
            algorithm: k.algorithm,
            flags: k.flags,
            role: 'csk',
            public_key: k.public_key,
            private_key_sealed: k.private_key_sealed,
          },
        },
        { type: 'DnssecKeyPublished', data: { ...base, key_tag: k.key_tag } },
      ];
    }
    case 'AdvanceRollover': {
      const r = state.rollover;
      if (!r || r.phase !== command.phase) return [];
      if (r.phase === 'publishing') {
        return [
          { type: 'DnssecKeyActivated', data: { ...base, key_tag: r.newTag } },
          { type: 'DnssecCdsPublished', data: { ...base, key_tags: [r.newTag], delete: false } },
        ];
      }
      if (r.phase === 'retiring') {
        return [
          { type: 'DnssecKeyRemoved', data: { ...base, key_tag: r.oldTag } },
          { type: 'DnssecRolloverCompleted', data: { ...base, key_tag: r.newTag } },
        ];
      }
      return [];
    }
    default:
      return unreachable(command);
  }
}

/** What a look at the parent's DS changes: a new observation, and the step it unlocks. */
function parentDsEvents(
  state: DnssecState,
  parentDs: number[] | null,
  base: { zone: string; at: string },
  unsigning: boolean,
): DnssecEvent[] {
  if (parentDs === null) return [];
  const tags = [...parentDs].sort((a, b) => a - b);
  const events: DnssecEvent[] = [];
  if (JSON.stringify(tags) !== JSON.stringify(state.parentDs))
    events.push({ type: 'DnssecParentDsSeen', data: { ...base, key_tags: tags } });
  if (unsigning && tags.length === 0) {
    return [...events, { type: 'DnssecCdsWithdrawn', data: base }, { type: 'DnssecDisabled', data: base }];
  }
  const r = state.rollover;
  if (!unsigning && r && r.phase === 'awaiting_ds' && tags.includes(r.newTag) && !tags.includes(r.oldTag)) {
    events.push(
      { type: 'DnssecKeyRetired', data: { ...base, key_tag: r.oldTag } },
      { type: 'DnssecCdsWithdrawn', data: base },
    );
  }
  return events;
}

/** The rollover phase follows from the events: activation starts the wait for the DS, retirement the wait for caches. */
export function rolloverPhase(state: DnssecState): RolloverPhase | null {
  const r = state.rollover;
  if (!r) return null;
  const newKey = state.keys.find((k) => k.key_tag === r.newTag);
  const oldKey = state.keys.find((k) => k.key_tag === r.oldTag);
  if (oldKey?.state === 'retired') return 'retiring';
  if (newKey?.state === 'active') return 'awaiting_ds';
  return 'publishing';
}
