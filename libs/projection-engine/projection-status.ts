import { Position, positionFromString, positionNumber, positionToString } from '../eventstore/event-store.port';
import { positionKey } from './projection-runner';
import { ProjectionSet } from './projection-set';

export interface ProjectionStatus {
  name: string;
  version: number;
  generation: number;
  position: string | null;
  lag: number;
  state: 'catching_up' | 'live' | 'failed' | 'stopped';
  error?: string;
  rebuilding?: { generation: number; position: string | null };
  /** The lease holder running it (this process or another); null when none does. */
  holder?: string | null;
}

/** Each projection's generation, position, lag and state: from the runner here, else from what its holder publishes. */
export async function projectionStatus(set: ProjectionSet): Promise<ProjectionStatus[]> {
  const head = await set.store.headPosition();
  const headN = head ? positionNumber(head) : 0;
  const out: ProjectionStatus[] = [];
  const lagOf = (p: Position | null) => Math.max(0, headN - (p ? positionNumber(p) : 0));
  const elsewhere = set.definitions.filter((d) => !set.runners.has(d.name)).map((d) => d.name);
  const published = await set.coordination.positions(elsewhere.map(positionKey));
  for (const d of set.definitions) {
    const r = set.runners.get(d.name);
    const rebuilding = set.rebuilds.get(d.name);
    const position = r ? r.position : positionFromString(published.get(positionKey(d.name)) ?? null);
    const holder = r ? set.holder : await set.coordination.leaseHolder(`projection:${d.name}`, Date.now());
    const runningElsewhere = !r && holder !== null;
    out.push({
      name: d.name,
      version: d.version,
      generation: set.generations.get(d.name) ?? 1,
      position: positionToString(position),
      lag: lagOf(position),
      state:
        !r && !runningElsewhere
          ? 'stopped'
          : r && (r.state === 'failed' || r.state === 'stopped')
            ? r.state
            : lagOf(position) === 0
              ? 'live'
              : 'catching_up',
      holder,
      ...(r?.error ? { error: r.error } : {}),
      ...(rebuilding
        ? { rebuilding: { generation: rebuilding.generation, position: positionToString(rebuilding.position) } }
        : {}),
    });
  }
  return out;
}
