/**
 * The DMARC wizard's fixed five-stage progression (seed: stage table and recommendation
 * rules) and the pure evaluation of where a zone stands.
 */
export type DmarcPolicy = 'none' | 'quarantine' | 'reject';
export type StageName = 'monitoring' | 'quarantine_partial' | 'quarantine_full' | 'reject_partial' | 'reject_full';

export interface StageConfig {
  name: StageName;
  policy: DmarcPolicy;
  percentage: number;
  minDays: number;
  /** Pass rate (percent) a zone needs to enter this stage; null: none. */
  threshold: number | null;
  /** Whether the wizard lets the owner choose the percentage when entering it. */
  partial: boolean;
}

export const STAGES: readonly StageConfig[] = [
  { name: 'monitoring', policy: 'none', percentage: 100, minDays: 14, threshold: 95.0, partial: false },
  { name: 'quarantine_partial', policy: 'quarantine', percentage: 10, minDays: 7, threshold: 98.0, partial: true },
  { name: 'quarantine_full', policy: 'quarantine', percentage: 100, minDays: 14, threshold: 99.0, partial: false },
  { name: 'reject_partial', policy: 'reject', percentage: 10, minDays: 7, threshold: 99.0, partial: true },
  { name: 'reject_full', policy: 'reject', percentage: 100, minDays: 0, threshold: null, partial: false },
];

export const MIN_MESSAGES_PER_STAGE = 100;
export const MAX_STAGE_HISTORY = 5;

export const stageConfig = (name: StageName): StageConfig => STAGES.find((s) => s.name === name)!;
export const nextStage = (name: StageName): StageConfig | null => STAGES[STAGES.indexOf(stageConfig(name)) + 1] ?? null;

export interface StageHistoryEntry {
  stage: StageName;
  policy: DmarcPolicy;
  percentage: number;
  entered_at: string;
  exited_at: string;
  pass_rate: number;
  messages: number;
  days: number;
}

export interface Progression {
  current_stage: StageName;
  policy: DmarcPolicy;
  percentage: number;
  entered_at: string;
  days_at_current_stage: number;
  messages_at_stage: number;
  pass_rate_at_stage: number;
  stage_history: StageHistoryEntry[];
  /** Internal flag of the seed; never exposed and never set by the API. */
  auto_advance: boolean;
}

export type RecommendationValue =
  'ready_advance' | 'investigate' | 'keep_monitoring' | 'need_more_data' | 'full_enforcement';
export type Blocker = 'insufficient_data' | 'low_pass_rate' | 'min_days_not_met';

export interface Recommendation {
  recommendation: RecommendationValue;
  reason: string;
  next_stage: StageName | null;
  next_config: { policy: DmarcPolicy; percentage: number } | null;
  ready_to_advance: boolean;
  blockers: Blocker[];
}

/**
 * The seed's rules in its order: `blockers` lists every unmet condition, `recommendation`
 * follows the first rule that matches (contract §7). The pass rate is held against the
 * threshold of the stage being entered; entering reject_full has none, so only data and
 * days hold a zone back there.
 */
export function recommend(p: Progression): Recommendation {
  const current = stageConfig(p.current_stage);
  const next = nextStage(p.current_stage);
  if (!next) {
    return {
      recommendation: 'full_enforcement',
      reason: 'Full enforcement is active: the policy is reject for all messages.',
      next_stage: null,
      next_config: null,
      ready_to_advance: false,
      blockers: [],
    };
  }
  const blockers: Blocker[] = [];
  if (p.messages_at_stage < MIN_MESSAGES_PER_STAGE) blockers.push('insufficient_data');
  if (next.threshold !== null && p.pass_rate_at_stage < next.threshold) blockers.push('low_pass_rate');
  if (p.days_at_current_stage < current.minDays) blockers.push('min_days_not_met');
  const base = { next_stage: next.name, next_config: { policy: next.policy, percentage: next.percentage }, blockers };
  if (blockers.includes('insufficient_data')) {
    return {
      ...base,
      recommendation: 'need_more_data',
      reason: `Need more data: ${p.messages_at_stage} messages reported at this stage, at least ${MIN_MESSAGES_PER_STAGE} are needed.`,
      ready_to_advance: false,
    };
  }
  if (blockers.includes('low_pass_rate')) {
    return {
      ...base,
      recommendation: 'investigate',
      reason:
        `Investigation needed: the pass rate ${p.pass_rate_at_stage.toFixed(1)}% is below the ` +
        `${next.threshold!.toFixed(1)}% that ${next.name} needs. Find the senders that fail SPF and DKIM ` +
        `alignment.`,
      ready_to_advance: false,
    };
  }
  if (blockers.includes('min_days_not_met')) {
    return {
      ...base,
      recommendation: 'keep_monitoring',
      reason:
        `Keep monitoring: ${p.days_at_current_stage} of the ${current.minDays} days at ${current.name} ` +
        `have passed and the pass rate is acceptable.`,
      ready_to_advance: false,
    };
  }
  return {
    ...base,
    recommendation: 'ready_advance',
    reason:
      `Ready to advance to ${next.name}: ${p.messages_at_stage} messages at a ` +
      `${p.pass_rate_at_stage.toFixed(1)}% pass rate over ${p.days_at_current_stage} days.`,
    ready_to_advance: true,
  };
}

/** Percent with one decimal (contract §7); no messages give 0. */
export const passRate = (messages: number, passing: number): number =>
  messages > 0 ? Math.round((passing / messages) * 1000) / 10 : 0;
