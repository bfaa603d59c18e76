import type { EventMetadata } from '../eventstore/event-store.port';

/**
 * What the dashboard can follow live (decision 0085): each topic is the read models a
 * screen reads, so a notice means "what you show from these has changed; read it again".
 */
export const LIVE_TOPICS = {
  uptime: ['uptime'],
  certificates: ['certificates'],
  email_auth: ['email_auth_events', 'email_auth'],
  audit: ['audit'],
  ddns: ['domains'],
  zones: ['zones'],
} as const satisfies Record<string, readonly string[]>;

export type LiveTopic = keyof typeof LIVE_TOPICS;

/**
 * The whole payload of one live notice. It names what changed, never how: no event data
 * goes out (certificate PEMs, sealed keys, addresses of other screens), so a notice can
 * leak nothing the page's own authenticated reads would not show. `ref` is the id the
 * page already knows the resource by (monitor id, certificate id, zone or host name).
 */
export interface LiveNotice {
  topics: LiveTopic[];
  type: string;
  ref?: string;
}

export interface RoutedNotice {
  accountId: number;
  notice: LiveNotice;
  /** The read models the notice's readers read: it goes out once they hold the event. */
  readModels: string[];
}

/** The projections that handle each event type, from their own definitions. */
export type HandledBy = ReadonlyMap<string, readonly string[]>;

export function handledBy(projections: readonly { name: string; handles?: readonly string[] }[]): HandledBy {
  const map = new Map<string, string[]>();
  for (const p of projections) for (const t of p.handles ?? []) map.set(t, [...(map.get(t) ?? []), p.name]);
  return map;
}

const TOPIC_OF = new Map<string, LiveTopic>(
  Object.entries(LIVE_TOPICS).flatMap(([topic, models]) => models.map((m) => [m, topic as LiveTopic])),
);

/** The event types some topic follows. */
export const liveEventTypes = (handled: HandledBy): Set<string> =>
  new Set([...handled].filter(([, ps]) => ps.some((p) => TOPIC_OF.has(p))).map(([t]) => t));

const REF_FIELDS = ['domain_id', 'certificate_id', 'zone', 'fqdn'] as const;

/** The account an event belongs to: its metadata says so, or (telemetry, reports) its data does. */
function accountOf(metadata: EventMetadata, data: unknown): number | null {
  if (typeof metadata.account_id === 'number') return metadata.account_id;
  const fromData = (data as { account_id?: unknown } | null)?.account_id;
  return typeof fromData === 'number' ? fromData : null;
}

/**
 * Where an event goes: the account it belongs to and the topics whose read models
 * handle it. Events of no account (operator jobs, process-manager steps) go nowhere.
 */
export function routeEvent(
  handled: HandledBy,
  event: { type: string; data: unknown; metadata: EventMetadata },
): RoutedNotice | null {
  const accountId = accountOf(event.metadata, event.data);
  if (accountId === null) return null;
  const readModels = (handled.get(event.type) ?? []).filter((p) => TOPIC_OF.has(p));
  if (readModels.length === 0) return null;
  const topics = [...new Set(readModels.map((p) => TOPIC_OF.get(p)!))];
  const data = (event.data ?? {}) as Record<string, unknown>;
  const refField = REF_FIELDS.find((f) => typeof data[f] === 'string' || typeof data[f] === 'number');
  return {
    accountId,
    readModels,
    notice: { topics, type: event.type, ...(refField ? { ref: String(data[refField]) } : {}) },
  };
}
