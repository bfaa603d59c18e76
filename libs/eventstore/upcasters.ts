import { RecordedEvent } from './event-store.port';

/**
 * Upcasters lift events stored under an older schema version to the current one, so
 * deciders and projections only ever see the current shape. Register one per
 * (event type, from-version) when a schema changes; stored events are never rewritten.
 */
type Upcaster = (data: any) => any;
const upcasters = new Map<string, Upcaster>();
/** Types with at least one upcaster: every other event passes through without its metadata being read. */
const upcastTypes = new Set<string>();

export function registerUpcaster(type: string, fromVersion: number, fn: Upcaster): void {
  upcasters.set(`${type}@${fromVersion}`, fn);
  upcastTypes.add(type);
}

export function upcast<E extends RecordedEvent>(event: E): E {
  // The common case costs one set lookup: reading `metadata` may decode it (lazy stores).
  if (!upcastTypes.has(event.type)) return event;
  let version = event.metadata?.version ?? 1;
  let data = event.data;
  let fn = upcasters.get(`${event.type}@${version}`);
  if (!fn) return event;
  while (fn) {
    data = fn(data);
    version += 1;
    fn = upcasters.get(`${event.type}@${version}`);
  }
  // Fields are copied by name, not spread: a store may decode some of them in getters.
  return {
    id: event.id,
    streamId: event.streamId,
    revision: event.revision,
    type: event.type,
    data,
    metadata: { ...event.metadata, version },
    position: event.position,
    created: event.created,
  } as E;
}
