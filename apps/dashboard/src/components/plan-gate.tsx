import type { PlanRequirement } from '../app/screen';

/** What a gated screen shows instead of failing: which plan unlocks it and who sets plans. */
export function PlanGate({ requirement, title }: { requirement: PlanRequirement; title: string }) {
  return (
    <section class="plan-gate" aria-labelledby="plan-gate-title">
      <h2 id="plan-gate-title">{title} is not part of your plan</h2>
      <p>{requirement.message}</p>
      <p class="hint">Plans are changed by the service's operators; ask them to upgrade your account.</p>
    </section>
  );
}

export const PlanBadge = ({ label }: { label: string }) => (
  <span class="badge" title={`Needs ${label}`}>
    {label}
  </span>
);
