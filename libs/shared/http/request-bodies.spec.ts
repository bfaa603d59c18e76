import { illFormedTextAt, nestsDeeperThan } from './request-bodies';

describe('request-body checks', () => {
  it('measures nesting over arrays and objects, skipping strings and their escapes', () => {
    expect(nestsDeeperThan('{"a": [[1]]}', 3)).toBe(false);
    expect(nestsDeeperThan('{"a": [[[1]]]}', 3)).toBe(true);
    expect(nestsDeeperThan('["[[[[", "\\"[[[[", {"k[[[": "]]]"}]', 2)).toBe(false);
    expect(nestsDeeperThan('[' + '"\\\\"' + ', [[1]]]', 2)).toBe(true);
    expect(nestsDeeperThan('['.repeat(100_000), 64)).toBe(true);
    expect(nestsDeeperThan('[],'.repeat(1000), 1)).toBe(false);
  });

  it('names the first string or field name holding a lone surrogate', () => {
    expect(illFormedTextAt({ a: ['x', { b: 'ok\ud83d\ude00' }] })).toBeNull();
    expect(illFormedTextAt({ a: ['x', { b: 'bad\ud800' }] })).toBe('a[1].b');
    expect(illFormedTextAt({ a: 1, '\udc00': 2 })).toBe('"\\udc00" (a field name)');
    expect(illFormedTextAt('\ud800')).toBe('the request body');
  });
});
