import { approximateJsonLength } from './document-size';

describe('approximateJsonLength', () => {
  it('is the JSON length of plain documents (8-digit numbers, no escapes)', () => {
    const docs = [
      {},
      [],
      {
        _id: 'a',
        n: 12345678,
        m: -1234567,
        ok: true,
        no: false,
        none: null,
        list: [10000000, 'two', { three: 30000000 }, [], {}],
        nested: { deep: { er: 'x' } },
      },
      {
        _id: 'block:b0',
        report_key: 'k',
        block: 10000000,
        tails: ',"count":1,"disposition":"none"};'.repeat(100).replace(/"/g, "'"),
      },
      ['a', 'b', 'c'],
    ];
    for (const d of docs) expect(approximateJsonLength(d)).toBe(JSON.stringify(d).length);
  });

  it('leaves out what JSON leaves out (undefined fields)', () => {
    expect(approximateJsonLength({ a: 'b', gone: undefined, also: () => 1 })).toBe(JSON.stringify({ a: 'b' }).length);
  });

  it('stays close for escapes, long numbers and dates', () => {
    const d = { text: 'a "quoted" word', pi: 3.141592653589793, at: new Date(0), tails: 'x"y'.repeat(1000) };
    const exact = JSON.stringify(d).length;
    expect(approximateJsonLength(d)).toBeGreaterThan(exact * 0.7);
    expect(approximateJsonLength(d)).toBeLessThanOrEqual(exact);
  });
});
