import { RecordedEvent } from './event-store.port';

/**
 * Upcasters lift events stored under an older schema version to the current one, so
 * deciders and projections only ever see the current shape. Register one per
 * (event type, from-version) when a schema changes; stored events are never rewritten.
 */
type Upcaster = (data: any) => any;
const upcasters = new Map<string, Upcaster>();

export function registerUpcaster(type: string, fromVersion: number, fn: Upcaster): void {
  upcasters.set(`${type}@${fromVersion}`, fn);
}

export function upcast<E extends RecordedEvent>(event: E): E {
  let version = event.metadata?.version ?? 1;
  let data = event.data;
  let fn = upcasters.get(`${event.type}@${version}`);
  if (!fn) return event;
  while (fn) {
    data = fn(data);
    version += 1;
    fn = upcasters.get(`${event.type}@${version}`);
  }
  return { ...event, data, metadata: { ...event.metadata, version } };
}
