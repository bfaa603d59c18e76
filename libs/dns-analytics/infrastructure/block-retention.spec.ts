import { queryRows } from './conformance/query-row.builder';
import { trimBlock } from './block-retention';
import { blocksOf, decodeBlock } from './query-blocks';

const T0 = Date.parse('2026-05-10T00:00:00Z');
const row = queryRows({ ts: T0 });

describe('trimming a block at a retention cutoff', () => {
  const [block] = blocksOf(
    [row({ qname: 'a1.a.test' }), row({ ts: T0 + 10, qname: 'a2.a.test' }), row({ ts: T0 + 20, qname: 'a3.a.test' })],
    41,
  );
  const rows = decodeBlock(block, block.data);

  it('keeps the rows from the cutoff on with their ids, and counts the rows removed', () => {
    const trimmed = trimBlock(rows, T0 + 10);
    expect(trimmed.removed).toBe(1);
    expect(trimmed.block).toMatchObject({
      accountId: 1,
      domain: 'a.test',
      minTs: T0 + 10,
      maxTs: T0 + 20,
      firstId: 42,
      count: 2,
    });
    expect(decodeBlock(trimmed.block!, trimmed.block!.data)).toEqual(rows.slice(1));
  });

  it('leaves nothing when every row is before the cutoff, and everything when none is', () => {
    expect(trimBlock(rows, T0 + 21)).toEqual({ block: null, removed: 3 });
    const whole = trimBlock(rows, T0);
    expect(whole.removed).toBe(0);
    expect(decodeBlock(whole.block!, whole.block!.data)).toEqual(rows);
  });
});
