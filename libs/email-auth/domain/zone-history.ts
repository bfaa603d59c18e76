/**
 * Read views folded from a zone's `emailauth-<zone>` stream for the dashboard: the DMARC
 * wizard's nightly figures (the pass-rate chart) and the zone's email-authentication event
 * log. Pure: the caller reads the stream. Events of an earlier owner of the zone name are
 * not the current account's and are left out.
 */
import type { EmailAuthEvent } from './email-auth.events';
import type { StageName } from './stages';

export interface StreamEvent {
  type: string;
  data: unknown;
  metadata?: { actor?: string | null; source_ip?: string | null } | null;
}

export interface NightPoint {
  night: string;
  stage: StageName;
  messages: number;
  passing: number;
  pass_rate: number;
  days_at_stage: number;
}

const own = (e: StreamEvent, accountId: number) => (e.data as { account_id?: number }).account_id === accountId;

/** One point per night the job recorded, oldest first, with the stage the zone was at. */
export function nightlySeries(events: StreamEvent[], accountId: number): NightPoint[] {
  let stage: StageName | null = null;
  const points: NightPoint[] = [];
  for (const raw of events) {
    if (!own(raw, accountId)) continue;
    const e = raw as unknown as EmailAuthEvent;
    if (e.type === 'DmarcWizardStarted') stage = e.data.stage;
    else if (e.type === 'DmarcStageAdvanced') stage = e.data.to_stage;
    else if (e.type === 'DmarcStageMetricsRecorded' && stage)
      points.push({
        night: e.data.night,
        stage,
        messages: e.data.messages,
        passing: e.data.passing,
        pass_rate: e.data.pass_rate,
        days_at_stage: e.data.days_at_stage,
      });
  }
  return points;
}

export interface EventLogEntry {
  type: string;
  occurred_at: string;
  actor: string | null;
  /** The event's own facts (zone, account and time are the entry's). */
  data: Record<string, unknown>;
}

/** The zone's events, newest first, at most `limit`. */
export function zoneEventLog(events: StreamEvent[], accountId: number, limit: number): EventLogEntry[] {
  const out: EventLogEntry[] = [];
  for (let i = events.length - 1; i >= 0 && out.length < limit; i--) {
    const e = events[i];
    if (!own(e, accountId)) continue;
    const { zone: _zone, account_id: _account, at, ...data } = e.data as Record<string, unknown> & { at: string };
    out.push({ type: e.type, occurred_at: at, actor: e.metadata?.actor ?? null, data });
  }
  return out;
}
