import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeadLocalHolder, processSpace } from './holder-liveness';
import { LeasedWork } from './lease';
import { SqliteCoordination } from './sqlite-coordination';

/** The pid of a process that has exited (and been reaped). */
const deadPid = (): number => {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
};

/** Whether a LeasedWork of this process gets a lease `holder` held (unexpired) when it starts. */
async function leaseTakenFrom(holder: string): Promise<{ held: boolean; started: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'holder-'));
  const coordination = new SqliteCoordination(join(dir, 'coordination.db'));
  try {
    expect(await coordination.tryLease('projection:x', holder, 60_000, Date.now())).toBe(true);
    let started = 0;
    const work = new LeasedWork(coordination, 'projection:x', `${processSpace()}:${process.pid}:eeee0000`, {
      ttlMs: 60_000,
      onAcquired: async () => void started++,
      onReleased: async () => undefined,
    });
    await work.start();
    const held = work.held;
    await work.stop();
    return { held, started };
  } finally {
    await coordination.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('lease holders that no longer run', () => {
  it('a holder is dead only when it is of this host and pid namespace and its pid is gone', () => {
    const here = processSpace();
    const gone = deadPid();
    expect(isDeadLocalHolder(`${here}:${gone}:abcd1234`)).toBe(true);
    expect(isDeadLocalHolder(`${here}:${process.pid}:abcd1234`)).toBe(false); // this process
    expect(isDeadLocalHolder(`${here}:${process.ppid}:abcd1234`)).toBe(false); // alive
    expect(isDeadLocalHolder(`elsewhere/1:${gone}:abcd1234`)).toBe(false); // another host: its pids are not ours
    expect(isDeadLocalHolder('garbage')).toBe(false);
  });

  it('a process restarted after SIGKILL takes its predecessor’s lease at once, not after the TTL', async () => {
    expect(await leaseTakenFrom(`${processSpace()}:${deadPid()}:abcd1234`)).toEqual({ held: true, started: 1 });
  });

  it('a live holder keeps its lease until it expires', async () => {
    expect(await leaseTakenFrom(`${processSpace()}:${process.ppid}:abcd1234`)).toEqual({ held: false, started: 0 });
  });
});
