/**
 * Polls `probe` every 50 ms until `ok` holds, and returns that value; after `timeoutMs` fails
 * naming `what` and the last value seen. For waits on real servers (secondaries, validators)
 * whose timing is the thing under test, so the timeout is the target, not a guess.
 */
export async function until<T>(
  what: string,
  timeoutMs: number,
  probe: () => T | Promise<T>,
  ok: (v: T) => boolean,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(v)} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
