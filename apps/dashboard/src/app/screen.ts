import type { ComponentType } from 'preact';
import type { Account, Plan } from '../api/types';

export interface ScreenProps {
  params: Record<string, string>;
  account: Account;
}

/** What unlocks a gated screen; `allows` decides from the account, `message` says it to the user. */
export interface PlanRequirement {
  allows: (account: Account) => boolean;
  /** Short badge in the navigation, e.g. "Plus". */
  badge: string;
  message: string;
}

/**
 * One screen of the dashboard. Each capability exports its screens from
 * `features/<capability>/index.ts`; `registry.ts` lists the capabilities, so a new one is a
 * folder and one line there.
 */
export interface ScreenDef {
  /** Route under /app, with `:param` segments. */
  path: string;
  title: string | ((params: Record<string, string>) => string);
  /** Shown in the navigation when set (screens with parameters are reached from their list). */
  nav?: { label: string; order: number };
  /** Public screens are for signed-out visitors (sign up, log in). */
  public?: boolean;
  requires?: PlanRequirement;
  component: ComponentType<ScreenProps>;
}

export const PLAN_ORDER: Plan[] = ['free', 'plus', 'pro', 'elite'];
export const PLAN_NAMES: Record<Plan, string> = { free: 'Free', plus: 'Plus', pro: 'Pro', elite: 'Elite' };

/** A requirement of "this plan or higher". */
export function planAtLeast(plan: Plan, feature: string): PlanRequirement {
  const min = PLAN_ORDER.indexOf(plan);
  return {
    allows: (a) => PLAN_ORDER.indexOf(a.plan) >= min,
    badge: PLAN_NAMES[plan],
    message: `${feature} needs the ${PLAN_NAMES[plan]} plan or higher.`,
  };
}
