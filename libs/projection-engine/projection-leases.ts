import { LeasedWork } from '../consumers/lease';
import { positionFromString } from '../eventstore/event-store.port';
import { ProjectionDefinition } from './projection';
import { CHECKPOINTS, CheckpointDoc, ProjectionRunner } from './projection-runner';
import { META, ProjectionMeta, ProjectionSet } from './projection-set';

/**
 * One lease per projection (`projection:<name>`): the process holding it runs the
 * projection from its checkpoint; the others stay on standby and take over if the holder
 * stops renewing. A projection whose code version changed is rebuilt when taken over.
 */
export class ProjectionLeases {
  private readonly leases = new Map<string, LeasedWork>();

  constructor(
    private readonly set: ProjectionSet,
    private readonly rebuild: (name: string, options: { wait?: boolean }) => Promise<unknown>,
  ) {}

  async start(): Promise<void> {
    for (const d of this.set.definitions) {
      const lease = new LeasedWork(this.set.coordination, `projection:${d.name}`, this.set.holder, {
        ttlMs: this.set.options.leaseTtlMs,
        onAcquired: () => this.takeOver(d),
        onReleased: () => this.letGo(d.name),
        log: this.set.log,
      });
      this.leases.set(d.name, lease);
    }
    await Promise.all([...this.leases.values()].map((l) => l.start()));
  }

  private async takeOver(d: ProjectionDefinition): Promise<void> {
    const metas = this.set.readStore.collection<ProjectionMeta>(META);
    const meta = await metas.findOne({ _id: d.name });
    if (!meta) {
      await metas.updateOne({ _id: d.name }, { $set: { generation: 1, version: d.version } }, { upsert: true });
      await this.set.coordination.setGeneration(d.name, 1);
    } else if (meta.version !== d.version) {
      // Code changed the read model's shape: build the new version before serving it.
      this.set.log('projection version changed; rebuilding', { projection: d.name, from: meta.version, to: d.version });
      await this.startRunner(d, meta.generation, true);
      await this.rebuild(d.name, { wait: true });
      return;
    } else {
      await this.set.coordination.setGeneration(d.name, meta.generation);
    }
    await this.startRunner(d, meta?.generation ?? 1, false);
  }

  private async letGo(name: string): Promise<void> {
    const rebuilding = this.set.rebuilds.get(name);
    this.set.rebuilds.delete(name);
    const runner = this.set.runners.get(name);
    this.set.runners.delete(name);
    await Promise.all([rebuilding?.stop(), runner?.stop()]);
    this.set.log('projection stopped here', { projection: name });
  }

  private async startRunner(d: ProjectionDefinition, generation: number, quiet: boolean): Promise<ProjectionRunner> {
    const checkpoint = await this.set.readStore
      .collection<CheckpointDoc>(CHECKPOINTS)
      .findOne({ _id: `${d.name}__g${generation}` });
    const runner = this.set.newRunner(d, generation, positionFromString(checkpoint?.position ?? null));
    runner.publishing = true;
    this.set.runners.set(d.name, runner);
    this.set.generations.set(d.name, generation);
    await runner.start();
    if (!quiet)
      this.set.log('projection started', { projection: d.name, generation, from: checkpoint?.position ?? null });
    return runner;
  }

  /** Releases every lease (their runners stop through `letGo`). */
  async stop(): Promise<void> {
    await Promise.all([...this.leases.values()].map((l) => l.stop()));
    this.leases.clear();
  }
}
