import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteCoordination } from '../consumers/sqlite-coordination';
import { UpdateReplayGuard } from './update-replay-guard';

describe('UpdateReplayGuard', () => {
  it('refuses a MAC seen within its window, from any process on the store, and forgets it once the window has passed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'replay-'));
    const file = join(dir, 'coordination.db');
    const [a, b] = [new SqliteCoordination(file), new SqliteCoordination(file)];
    let now = 1_000_000;
    const [here, there] = [new UpdateReplayGuard(a, () => now), new UpdateReplayGuard(b, () => now)];
    try {
      expect(await here.replayed('mac-a', 1_300)).toBe(false);
      expect(await here.replayed('mac-a', 1_300)).toBe(true);
      expect(await there.replayed('mac-a', 1_300)).toBe(true);
      expect(await there.replayed('mac-b', 1_300)).toBe(false);
      now = 1_301_000;
      expect(await there.replayed('mac-a', 1_601)).toBe(false);
      expect(await here.replayed('mac-a', 1_601)).toBe(true);
    } finally {
      await a.close();
      await b.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
