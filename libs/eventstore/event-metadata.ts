import { currentOrigin } from '../shared/command-origin';
import type { EventMetadata } from './event-store.port';

/**
 * The metadata of an appended event: the origin's correlation, causation, actor and
 * source IP, overridden by whatever the handler states itself (its account, a more
 * exact actor), plus the schema version.
 */
export function eventMetadata(stated: EventMetadata = {}): EventMetadata {
  const o = currentOrigin();
  if (!o) return { version: 1, ...stated };
  return {
    version: 1,
    ...(o.correlationId ? { correlation_id: o.correlationId } : {}),
    ...(o.causationId ? { causation_id: o.causationId } : {}),
    ...(o.actor ? { actor: o.actor } : {}),
    ...(o.sourceIp ? { source_ip: o.sourceIp } : {}),
    ...stated,
  };
}
