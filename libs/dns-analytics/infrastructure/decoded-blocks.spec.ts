import { queryRows } from './conformance/query-row.builder';
import { DecodedBlocks } from './decoded-blocks';
import { blocksOf } from './query-blocks';

const T0 = Date.parse('2026-05-10T00:00:00Z');
const row = queryRows({ ts: T0 });

describe('decoded blocks', () => {
  const [block] = blocksOf([row(), row({ ts: T0 + 1 })], 1);

  it('decode a block once while it is among the last few read, fetching its bytes only then', () => {
    const cache = new DecodedBlocks(2);
    let fetched = 0;
    const data = () => (fetched++, block.data);
    const first = cache.rowsOf('b1', block, data);
    expect(first.map((r) => r.id)).toEqual(['1', '2']);
    expect(cache.rowsOf('b1', block, data)).toBe(first);
    expect(fetched).toBe(1);
    cache.rowsOf('b2', block, data);
    cache.rowsOf('b3', block, data);
    cache.rowsOf('b1', block, data);
    expect(fetched).toBe(4);
  });

  it('decode again a block rewritten under the same id (retention), and read a vanished one as empty', () => {
    const cache = new DecodedBlocks();
    cache.rowsOf('b1', block, () => block.data);
    const [trimmed] = blocksOf([row({ ts: T0 + 1 })], 2);
    expect(cache.rowsOf('b1', trimmed, () => trimmed.data).map((r) => r.id)).toEqual(['2']);
    expect(cache.rowsOf('gone', block, () => undefined)).toEqual([]);
  });
});
