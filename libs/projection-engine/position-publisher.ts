import { Coordination } from '../consumers/coordination';
import { ReadStore } from '../readstore/read-store.port';

/**
 * Publishes how far this process's projection runners have got, for processes without a
 * runner (their read-your-writes waits poll these positions). Runners ask after each batch;
 * a round starts at most every `everyMs`, takes the positions of the runners that asked,
 * waits until the read store has committed what they cover (a reader released by a position
 * must find the documents on disk), and writes them all in one coordination transaction.
 * One round is in flight at a time: runners asking meanwhile go with the next one. Under a
 * DDNS load that is one small write per read-store commit for all sixteen projections,
 * instead of one per projection (each of them waiting for that same commit).
 */
export class PositionPublisher {
  private readonly asked = new Map<string, () => string | null>();
  private timer: NodeJS.Timeout | null = null;
  private inFlight: Promise<void> | null = null;

  constructor(
    private readonly readStore: ReadStore,
    private readonly coordination: Coordination,
    private readonly everyMs: number,
  ) {}

  /** `key`'s position (`position()` read when the round starts) goes out with the next round. */
  request(key: string, position: () => string | null): void {
    this.asked.set(key, position);
    if (!this.timer && !this.inFlight) this.schedule();
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      this.timer = null;
      this.inFlight = this.round()
        .catch(() => undefined)
        .finally(() => {
          this.inFlight = null;
          if (this.asked.size > 0) this.schedule();
        });
    }, this.everyMs);
  }

  private async round(): Promise<void> {
    const positions = new Map<string, string | null>();
    for (const [key, position] of this.asked) positions.set(key, position());
    this.asked.clear();
    await this.readStore.committed();
    await this.coordination.savePositions(positions);
  }

  /**
   * Drops `key`'s request and waits for the round in flight, so a runner that stops (and then
   * publishes its last position itself) is never followed by an older position of its own.
   */
  async forget(key: string): Promise<void> {
    this.asked.delete(key);
    if (this.asked.size === 0 && this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    await this.inFlight;
  }
}
