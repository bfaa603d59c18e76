import type { RecordedEvent } from '../../eventstore/event-store.port';
import { alertTitle } from './alert-rules';
import type { AlertRaised, AlertResolved } from './alert.events';

/** Alert facts that are event-log entries (`alert.raised` / `alert.resolved`); the streak bookkeeping is not. */
export const ALERT_LOG_SOURCE_TYPES = ['AlertRaised', 'AlertResolved'] as const satisfies readonly (
  AlertRaised | AlertResolved
)['type'][];

/** An alert fact as its event-log entry (the shape is `EventLogDoc` of libs/email-auth-api). */
export function alertLogEntryOf(event: (AlertRaised | AlertResolved) & Pick<RecordedEvent, 'id'>) {
  const raised = event.type === 'AlertRaised';
  const d = event.data;
  return {
    _id: event.id,
    id: event.id,
    account_id: d.account_id,
    type: raised ? ('alert.raised' as const) : ('alert.resolved' as const),
    occurred_at: d.occurred_at,
    domain: d.zone,
    // The rule's severity on both, so a resolution can be matched to what it ends.
    severity: d.severity,
    title: alertTitle(d.rule, d.zone, raised ? 'raised' : 'resolved', d.figures),
    data: {
      rule: d.rule,
      observed: d.observed,
      figures: d.figures,
      threshold: d.threshold,
      ...(event.type === 'AlertResolved' ? { raised_at: event.data.raised_at } : {}),
    },
  };
}
