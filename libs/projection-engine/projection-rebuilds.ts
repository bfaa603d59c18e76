import { physicalName, ProjectionRunner } from './projection-runner';
import { FOLLOW_INTERVAL_MS, META, ProjectionMeta, ProjectionSet } from './projection-set';
import { REMOTE_POLL_MS } from './read-your-writes';

/**
 * Rebuilds without downtime: a new generation is built beside the live one and readers
 * switch to it once it has caught up. Only the lease holder builds; any other process
 * passes the request on through coordination and may wait for the switch.
 */
export class ProjectionRebuilds {
  constructor(private readonly set: ProjectionSet) {}

  /**
   * Rebuilds a projection without downtime: a new generation is built from position
   * zero beside the live one; once it reaches the head, readers switch to it and the
   * old generation's collections are dropped. Only the process holding the projection's
   * lease rebuilds it; any other passes the request on to that process.
   */
  async rebuild(name: string, options: { wait?: boolean } = {}): Promise<{ generation: number }> {
    const d = this.set.definition(name);
    if (this.set.rebuilds.has(name)) throw new Error(`projection ${name} is already rebuilding`);
    const current = this.set.generations.get(name) ?? 1;
    const next = current + 1;
    if (!this.set.runners.has(name)) {
      await this.set.coordination.requestRebuild(name);
      if (options.wait) await this.untilGeneration(name, next);
      return { generation: next };
    }
    for (const logical of d.collections) await this.set.readStore.dropCollection(physicalName(logical, next));
    const runner = this.set.newRunner(d, next, null);
    await runner.dropCheckpoint();
    this.set.rebuilds.set(name, runner);
    await runner.start();
    const finished = this.switchWhenCaughtUp(name, runner, current);
    if (options.wait) await finished;
    else finished.catch((e) => this.set.log('rebuild failed', { projection: name, error: String(e) }));
    return { generation: next };
  }

  private async untilGeneration(name: string, generation: number, timeoutMs = 120_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while ((this.set.generations.get(name) ?? 1) < generation && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, REMOTE_POLL_MS * 5));
      const shared = (await this.set.coordination.generations()).get(name);
      if (shared !== undefined && !this.set.runners.has(name)) this.set.generations.set(name, shared);
    }
  }

  private async switchWhenCaughtUp(name: string, runner: ProjectionRunner, oldGeneration: number): Promise<void> {
    const d = this.set.definition(name);
    for (;;) {
      // A lease lost meanwhile stopped the rebuild; the new holder starts its own when asked.
      if (this.set.rebuilds.get(name) !== runner) return;
      const head = await this.set.store.headPosition();
      if (!head || (runner.position && runner.position.commit >= head.commit)) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    await runner.saveCheckpoint();
    await this.set.readStore
      .collection<ProjectionMeta>(META)
      .updateOne({ _id: name }, { $set: { generation: runner.generation, version: d.version } }, { upsert: true });
    const old = this.set.runners.get(name);
    runner.publishing = true;
    await runner.publish();
    this.set.runners.set(name, runner);
    this.set.generations.set(name, runner.generation);
    await this.set.coordination.setGeneration(name, runner.generation);
    this.set.rebuilds.delete(name);
    if (old) {
      old.publishing = false;
      await old.stop();
      await old.dropCheckpoint();
    }
    const retireAfterMs =
      this.set.options.retireAfterMs ??
      (this.set.ownsCoordination ? 0 : 2 * (this.set.options.followIntervalMs ?? FOLLOW_INTERVAL_MS));
    if (retireAfterMs > 0) await new Promise((r) => setTimeout(r, retireAfterMs));
    for (const logical of d.collections) await this.set.readStore.dropCollection(physicalName(logical, oldGeneration));
    this.set.log('projection rebuilt', { projection: name, generation: runner.generation });
  }
}
