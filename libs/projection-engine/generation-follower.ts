import { FOLLOW_INTERVAL_MS, META, ProjectionMeta, ProjectionSet } from './projection-set';

/**
 * Following generations: readers here use the generation the projection's runner (here or
 * in another process) switched to last. Resolved at start, then followed every
 * `followIntervalMs` and at once when the read store notices another process's commit.
 * The same loop picks up the rebuilds other processes asked this one (the lease holder) for.
 */
export class GenerationFollower {
  private followTimer: NodeJS.Timeout | null = null;
  private followQueued = false;
  /** The follow in progress (they run one after another). */
  following: Promise<void> = Promise.resolve();

  constructor(
    private readonly set: ProjectionSet,
    private readonly rebuild: (name: string) => Promise<unknown>,
  ) {
    // Another process's commit may be a rebuild's switch: look at once rather than at the next interval.
    set.readStore.onCommitElsewhere?.(() => this.followSoon());
  }

  private followSoon(): void {
    if (this.followQueued || !this.followTimer) return;
    this.followQueued = true;
    this.following = this.following
      .then(() => {
        this.followQueued = false;
        return this.followGenerations();
      })
      .catch((e) => this.set.log('projection follow failed', { error: String(e) }));
  }

  /**
   * Resolves generations (readers need this even where no runner runs) and keeps
   * following them: another process's rebuild switches this one's readers too.
   */
  async loadGenerations(): Promise<void> {
    const metas = this.set.readStore.collection<ProjectionMeta>(META);
    const shared = await this.set.coordination.generations();
    for (const d of this.set.definitions) {
      const generation = shared.get(d.name) ?? (await metas.findOne({ _id: d.name }))?.generation ?? 1;
      if (!this.set.runners.has(d.name)) this.set.generations.set(d.name, generation);
    }
    this.startFollowing();
  }

  private startFollowing(): void {
    if (this.followTimer) return;
    this.followTimer = setInterval(() => {
      this.following = this.following
        .then(() => this.follow())
        .catch((e) => this.set.log('projection follow failed', { error: String(e) }));
    }, this.set.options.followIntervalMs ?? FOLLOW_INTERVAL_MS);
    this.followTimer.unref();
  }

  private async followGenerations(): Promise<void> {
    const shared = await this.set.coordination.generations();
    for (const [name, generation] of shared) {
      if (
        !this.set.runners.has(name) &&
        this.set.generations.has(name) &&
        this.set.generations.get(name) !== generation
      ) {
        this.set.generations.set(name, generation);
        this.set.log('projection generation followed', { projection: name, generation });
      }
    }
  }

  /** Generation switches made elsewhere, and rebuilds other processes asked this one (the lease holder) for. */
  private async follow(): Promise<void> {
    await this.followGenerations();
    const held = [...this.set.runners.keys()].filter((n) => !this.set.rebuilds.has(n));
    if (held.length === 0) return;
    for (const name of await this.set.coordination.takeRebuildRequests(held)) {
      await this.rebuild(name).catch((e) =>
        this.set.log('requested rebuild failed', { projection: name, error: String(e) }),
      );
    }
  }

  /** Stops following; `following` settles once a follow in progress is done. */
  stop(): void {
    if (this.followTimer) clearInterval(this.followTimer);
    this.followTimer = null;
  }
}
