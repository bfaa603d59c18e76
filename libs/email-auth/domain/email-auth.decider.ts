import { Decider, unreachable } from '../../shared/decider';
import { badRequest, conflict, notFound, validationFailed } from '../../shared/errors';
import { EmailAuthEvent } from './email-auth.events';
import { ZoneSettings } from './records';
import {
  BimiSettings,
  checkBimi,
  checkDmarc,
  checkMtaSts,
  checkPercentage,
  checkPublicKey,
  checkSelector,
  checkSpf,
  checkTlsRpt,
  DkimKey,
  DmarcSettings,
  SpfInput,
} from './settings';
import { checkSpfLength, checkSpfLookups, spfRecord } from './spf';
import { MAX_STAGE_HISTORY, nextStage, passRate, Progression, recommend, stageConfig, STAGES } from './stages';

export interface EmailAuthState extends ZoneSettings {
  zone: string;
  accountId: number;
  dkimKeys: Map<string, DkimKey>;
  /** DNS lookups the SPF record cost when it was set (RFC 7208 §4.6.4). */
  spfLookups: number | null;
  mtaStsChanges: number;
  progression: Progression | null;
  /** The last night the nightly job recorded (YYYY-MM-DD), so a rerun of a night is a no-op. */
  lastNight: string | null;
}

type Raw<T> = { [K in keyof T]?: unknown };

export type EmailAuthCommand = { accountId: number; zone: string; at: string } & (
  | { type: 'ConfigureDmarc'; dmarc: Raw<DmarcSettings> & { policy: string } }
  | { type: 'ConfigureSpf'; spf: SpfInput; dnsLookups: number }
  | { type: 'SetDkimKey'; selector: string; publicKey: string; generated: boolean }
  | { type: 'RemoveDkimKey'; selector: string }
  | { type: 'ConfigureMtaSts'; mtaSts: { mode: string; mx?: string[]; max_age?: number } }
  | { type: 'ConfigureTlsRpt'; tlsRpt: { rua: string[] } }
  | { type: 'ConfigureBimi'; bimi: { logo_url: string; vmc_url?: string | null } }
  | { type: 'OpenWizard' }
  | { type: 'AdvanceStage'; confirm: unknown; percentage?: number }
  | {
      type: 'RecordNightlyMetrics';
      night: string;
      windowFrom: string;
      windowTo: string;
      messages: number;
      passing: number;
    }
);

export const DMARC_CONFIG_NOT_FOUND = 'DMARC configuration not found for this zone';
export const PROGRESSION_NOT_FOUND = 'DMARC progression not found';
export const FINAL_STAGE = 'Already at final policy stage';

const initial = (): EmailAuthState => ({
  zone: '',
  accountId: 0,
  dmarc: null,
  spf: null,
  spfLookups: null,
  dkim: [],
  dkimKeys: new Map(),
  mtaSts: null,
  mtaStsChanges: 0,
  tlsRpt: null,
  bimi: null,
  progression: null,
  lastNight: null,
});

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
/** RFC 8461 §3.1: `id` is 1-32 alphanumerics; the change time plus a counter never repeats. */
const mtaStsId = (at: string, n: number) => `${at.replace(/\D/g, '').slice(0, 17)}${n}`.slice(0, 32);

function withDkim(state: EmailAuthState, keys: Map<string, DkimKey>): EmailAuthState {
  return { ...state, dkimKeys: keys, dkim: [...keys.values()].sort((a, b) => a.selector.localeCompare(b.selector)) };
}

export const emailAuthDecider: Decider<EmailAuthState, EmailAuthCommand, EmailAuthEvent> = {
  initialState: initial,

  evolve(previous, event) {
    // A zone name imported again by another account starts from nothing: settings belong to an owner.
    const state =
      previous.accountId === event.data.account_id
        ? previous
        : { ...initial(), zone: event.data.zone, accountId: event.data.account_id };
    switch (event.type) {
      case 'DmarcConfigured':
        return { ...state, dmarc: event.data.dmarc };
      case 'DmarcPolicyChanged':
        return state;
      case 'SpfConfigured':
        return { ...state, spf: event.data.spf, spfLookups: event.data.dns_lookups };
      case 'DkimKeySet':
        return withDkim(state, new Map(state.dkimKeys).set(event.data.key.selector, event.data.key));
      case 'DkimKeyRemoved': {
        const keys = new Map(state.dkimKeys);
        keys.delete(event.data.selector);
        return withDkim(state, keys);
      }
      case 'MtaStsConfigured':
        return { ...state, mtaSts: event.data.mta_sts, mtaStsChanges: state.mtaStsChanges + 1 };
      case 'TlsRptConfigured':
        return { ...state, tlsRpt: event.data.tls_rpt };
      case 'BimiConfigured':
        return { ...state, bimi: event.data.bimi };
      case 'DmarcWizardStarted':
        return {
          ...state,
          progression: {
            current_stage: event.data.stage,
            policy: event.data.policy,
            percentage: event.data.percentage,
            entered_at: event.data.at,
            days_at_current_stage: 0,
            messages_at_stage: 0,
            pass_rate_at_stage: 0,
            stage_history: [],
            auto_advance: false,
          },
        };
      case 'DmarcStageAdvanced': {
        const p = state.progression!;
        const d = event.data;
        return {
          ...state,
          dmarc: state.dmarc && { ...state.dmarc, policy: d.policy, percentage: d.percentage },
          progression: {
            ...p,
            current_stage: d.to_stage,
            policy: d.policy,
            percentage: d.percentage,
            entered_at: d.at,
            days_at_current_stage: 0,
            messages_at_stage: 0,
            pass_rate_at_stage: 0,
            stage_history: [...p.stage_history, d.history_entry].slice(-MAX_STAGE_HISTORY),
          },
        };
      }
      case 'DmarcStageMetricsRecorded': {
        const d = event.data;
        return {
          ...state,
          lastNight: d.night,
          progression: state.progression && {
            ...state.progression,
            days_at_current_stage: d.days_at_stage,
            messages_at_stage: d.messages,
            pass_rate_at_stage: d.pass_rate,
          },
        };
      }
      default:
        return unreachable(event);
    }
  },

  decide(command, stored) {
    const state = stored.accountId === command.accountId ? stored : initial();
    const base = { zone: command.zone, account_id: command.accountId, at: command.at };
    switch (command.type) {
      case 'ConfigureDmarc': {
        const dmarc = checkDmarc(command.dmarc as Parameters<typeof checkDmarc>[0]);
        if (same(dmarc, state.dmarc)) return [];
        return [
          { type: 'DmarcConfigured', data: { ...base, dmarc } },
          ...policyChange(state.dmarc, dmarc, 'settings', null, base),
        ];
      }
      case 'ConfigureSpf': {
        const spf = checkSpf(command.spf);
        checkSpfLength(spfRecord(spf));
        checkSpfLookups(command.dnsLookups);
        if (same(spf, state.spf) && command.dnsLookups === state.spfLookups) return [];
        return [{ type: 'SpfConfigured', data: { ...base, spf, dns_lookups: command.dnsLookups } }];
      }
      case 'SetDkimKey': {
        const selector = checkSelector(command.selector);
        const key: DkimKey = {
          selector,
          ...checkPublicKey(command.publicKey),
          generated: command.generated,
          created_at: command.at,
        };
        const current = state.dkimKeys.get(selector);
        if (current && current.public_key === key.public_key) return [];
        return [{ type: 'DkimKeySet', data: { ...base, key } }];
      }
      case 'RemoveDkimKey': {
        const selector = command.selector.toLowerCase();
        if (!state.dkimKeys.has(selector)) throw notFound('DKIM key not found');
        return [{ type: 'DkimKeyRemoved', data: { ...base, selector } }];
      }
      case 'ConfigureMtaSts': {
        const policy = checkMtaSts(command.mtaSts);
        const current = state.mtaSts;
        if (
          current &&
          current.mode === policy.mode &&
          same(current.mx, policy.mx) &&
          current.max_age === policy.max_age
        )
          return [];
        const mta_sts = { ...policy, id: mtaStsId(command.at, state.mtaStsChanges + 1), updated_at: command.at };
        return [{ type: 'MtaStsConfigured', data: { ...base, mta_sts } }];
      }
      case 'ConfigureTlsRpt': {
        const tls_rpt = checkTlsRpt(command.tlsRpt);
        return same(tls_rpt, state.tlsRpt) ? [] : [{ type: 'TlsRptConfigured', data: { ...base, tls_rpt } }];
      }
      case 'ConfigureBimi': {
        const bimi: BimiSettings = checkBimi(command.bimi);
        return same(bimi, state.bimi) ? [] : [{ type: 'BimiConfigured', data: { ...base, bimi } }];
      }
      case 'OpenWizard': {
        if (!state.dmarc) throw notFound(DMARC_CONFIG_NOT_FOUND);
        if (state.progression) return [];
        const first = STAGES[0];
        return [
          {
            type: 'DmarcWizardStarted',
            data: { ...base, stage: first.name, policy: first.policy, percentage: first.percentage },
          },
        ];
      }
      case 'AdvanceStage':
        return advance(state, command, base);
      case 'RecordNightlyMetrics': {
        const p = state.progression;
        if (!p || (state.lastNight !== null && command.night <= state.lastNight)) return [];
        return [
          {
            type: 'DmarcStageMetricsRecorded',
            data: {
              ...base,
              night: command.night,
              window_from: command.windowFrom,
              window_to: command.windowTo,
              messages: command.messages,
              passing: command.passing,
              pass_rate: passRate(command.messages, command.passing),
              days_at_stage: p.days_at_current_stage + 1,
            },
          },
        ];
      }
      default:
        return unreachable(command);
    }
  },
};

function policyChange(
  before: DmarcSettings | null,
  after: { policy: DmarcSettings['policy']; percentage: number },
  source: 'settings' | 'wizard',
  stage: Progression['current_stage'] | null,
  base: { zone: string; account_id: number; at: string },
): EmailAuthEvent[] {
  if (before && before.policy === after.policy && before.percentage === after.percentage) return [];
  const from = before ? { policy: before.policy, percentage: before.percentage } : null;
  return [
    {
      type: 'DmarcPolicyChanged',
      data: { ...base, source, from, to: { policy: after.policy, percentage: after.percentage }, stage },
    },
  ];
}

function advance(
  state: EmailAuthState,
  command: Extract<EmailAuthCommand, { type: 'AdvanceStage' }>,
  base: { zone: string; account_id: number; at: string },
): EmailAuthEvent[] {
  const p = state.progression;
  if (!p) throw notFound(PROGRESSION_NOT_FOUND);
  const next = nextStage(p.current_stage);
  if (!next) throw conflict('final_stage', FINAL_STAGE);
  if (command.confirm !== true)
    throw badRequest('confirmation_required', 'Advancing changes the published DMARC policy: send "confirm": true');
  if (command.percentage !== undefined && !next.partial) {
    throw validationFailed(
      `percentage: a custom percentage is allowed only when entering quarantine_partial or reject_partial, not ${next.name}`,
    );
  }
  const percentage =
    command.percentage === undefined ? next.percentage : checkPercentage(command.percentage, 'percentage');
  const rec = recommend(p);
  if (!rec.ready_to_advance)
    throw conflict('not_ready', `Not ready to advance to ${next.name}: ${rec.blockers.join(', ')}`);
  if (!state.dmarc) throw notFound(DMARC_CONFIG_NOT_FOUND);
  const current = stageConfig(p.current_stage);
  const history_entry = {
    stage: current.name,
    policy: p.policy,
    percentage: p.percentage,
    entered_at: p.entered_at,
    exited_at: command.at,
    pass_rate: p.pass_rate_at_stage,
    messages: p.messages_at_stage,
    days: p.days_at_current_stage,
  };
  return [
    {
      type: 'DmarcStageAdvanced',
      data: { ...base, from_stage: current.name, to_stage: next.name, policy: next.policy, percentage, history_entry },
    },
    ...policyChange(state.dmarc, { policy: next.policy, percentage }, 'wizard', next.name, base),
  ];
}
