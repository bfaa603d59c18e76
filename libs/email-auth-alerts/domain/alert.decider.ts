import { Decider } from '../../shared/decider';
import { AlertRule, RULES } from './alert-rules';
import { AlertEvent } from './alert.events';

/** One observation of a rule for one domain, decided by `alertDecider`. */
export interface EvaluateAlert {
  type: 'EvaluateAlert';
  account_id: number;
  zone: string;
  rule: AlertRule;
  /** Order key of the observation (report day or check time); older or repeated ones are ignored. */
  observed: string;
  /** When the evaluation ran (the event's occurred_at). */
  at: string;
  verdict: 'firing' | 'clear';
  figures: Record<string, unknown>;
}

export interface AlertState {
  status: 'clear' | 'raised';
  /** The newest observation that changed anything; an observation not newer than it is stale. */
  lastObserved: string | null;
  raisedAt: string | null;
  clearStreak: number;
}

/**
 * Raise once, resolve once, no flapping: an alert stream per account + rule + domain.
 * Firing while clear raises; firing while raised says nothing more (at most it restarts
 * the clear streak); clear while raised counts towards the rule's streak and resolves
 * when it is reached. Observations arrive with an order key, so a report day evaluated
 * late or a check repeated after a crash changes nothing.
 */
export const alertDecider: Decider<AlertState, EvaluateAlert, AlertEvent> = {
  initialState: () => ({ status: 'clear', lastObserved: null, raisedAt: null, clearStreak: 0 }),

  evolve(state, event) {
    const lastObserved = event.data.observed;
    switch (event.type) {
      case 'AlertRaised':
        return { status: 'raised', lastObserved, raisedAt: event.data.occurred_at, clearStreak: 0 };
      case 'AlertClearObserved':
        return { ...state, lastObserved, clearStreak: event.data.clear_streak };
      case 'AlertRecurred':
        return { ...state, lastObserved, clearStreak: 0 };
      case 'AlertResolved':
        return { status: 'clear', lastObserved, raisedAt: null, clearStreak: 0 };
    }
  },

  decide(c, state) {
    if (state.lastObserved !== null && c.observed <= state.lastObserved) return [];
    const rule = RULES[c.rule];
    const fact = { account_id: c.account_id, zone: c.zone, rule: c.rule, observed: c.observed };
    if (c.verdict === 'firing') {
      if (state.status === 'clear')
        return [
          {
            type: 'AlertRaised',
            data: {
              ...fact,
              severity: rule.severity,
              occurred_at: c.at,
              figures: c.figures,
              threshold: rule.threshold,
            },
          },
        ];
      return state.clearStreak > 0 ? [{ type: 'AlertRecurred', data: { ...fact, figures: c.figures } }] : [];
    }
    if (state.status === 'clear') return [];
    const streak = state.clearStreak + 1;
    if (streak < rule.clearObservationsToResolve)
      return [{ type: 'AlertClearObserved', data: { ...fact, clear_streak: streak } }];
    return [
      {
        type: 'AlertResolved',
        data: {
          ...fact,
          severity: rule.severity,
          occurred_at: c.at,
          raised_at: state.raisedAt!,
          figures: c.figures,
          threshold: rule.threshold,
        },
      },
    ];
  },
};
