import { ByteBudget, HeldMessage } from './smtp-limits';

/** Bytes 0..n-1 of a repeating pattern, so a misplaced or lost byte shows. */
const bytes = (n: number, from = 0) => Buffer.from(Array.from({ length: n }, (_, i) => (from + i) % 251));

describe('HeldMessage', () => {
  it('gives back exactly the bytes it was given, across block boundaries, and none of the chunks', () => {
    const budget = new ByteBudget(10_000, 16);
    const message = new HeldMessage(budget, 5000);
    const whole = bytes(1000);
    const chunks: Buffer[] = [];
    // Chunks of odd sizes: some end inside a block, some span several.
    for (let at = 0, size = 1; at < whole.length; at += size, size = (size * 7) % 53 || 1)
      chunks.push(Buffer.from(whole.subarray(at, at + size)));
    for (const c of chunks) message.add(c);
    // The chunks are copied, not kept: changing them afterwards does not change the message.
    for (const c of chunks) c.fill(0);
    expect(message.content().equals(whole)).toBe(true);
    expect(budget.held).toBe(1000);
    message.release();
    expect(budget.held).toBe(0);
  });

  it('reuses the blocks a released message gave back, and keeps no more spare than the cap', () => {
    const budget = new ByteBudget(64, 16);
    const first = new HeldMessage(budget, 64);
    first.add(bytes(64));
    first.release();
    expect(budget.spareBlocks).toBe(4);
    const second = new HeldMessage(budget, 64);
    second.add(bytes(40, 7));
    expect(budget.spareBlocks).toBe(1);
    expect(second.content().equals(bytes(40, 7))).toBe(true);
    second.release();
    // The two messages never held more than the cap: the spare blocks stay within it.
    expect(budget.spareBlocks).toBe(4);
    first.release();
    expect(budget.spareBlocks).toBe(4);
  });

  it('drops the spare blocks once nothing has been held for a while', async () => {
    const budget = new ByteBudget(64, 16, 20);
    const message = new HeldMessage(budget, 64);
    message.add(bytes(50));
    message.release();
    expect(budget.spareBlocks).toBe(4);
    await new Promise((r) => setTimeout(r, 60));
    expect(budget.spareBlocks).toBe(0);
  });

  it('stops keeping a message past its size limit or the budget, and gives its bytes back at once', () => {
    const budget = new ByteBudget(100, 16);
    const big = new HeldMessage(budget, 50);
    big.add(bytes(40));
    expect(budget.held).toBe(40);
    big.add(bytes(20));
    expect(big.refused).toBe('too_large');
    expect(big.size).toBe(60);
    expect(budget.held).toBe(0);
    const a = new HeldMessage(budget, 100);
    const b = new HeldMessage(budget, 100);
    a.add(bytes(70));
    b.add(bytes(40));
    expect(b.refused).toBe('no_room');
    expect(budget.held).toBe(70);
    expect(a.content().equals(bytes(70))).toBe(true);
  });
});
