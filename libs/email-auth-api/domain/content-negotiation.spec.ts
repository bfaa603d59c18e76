import { acceptsGzip, ifNoneMatchHits, weakEtag } from './content-negotiation';

describe('acceptsGzip', () => {
  it.each([
    ['gzip', true],
    ['gzip, deflate, br', true],
    ['br;q=1.0, gzip;q=0.8, *;q=0.1', true],
    ['x-gzip', true],
    ['*', true],
    ['GZIP', true],
    [['deflate', 'gzip'], true],
    [undefined, false],
    ['', false],
    ['identity', false],
    ['br, deflate', false],
    ['gzip;q=0', false],
    ['gzip;q=0.000', false],
    ['*;q=0', false],
    ['gzip;q=0, *', false],
    ['*, gzip;q=0', false],
    ['identity, *;q=0.5', true],
    ['gzip;q=banana', false],
  ])('%j → %s', (header, expected) => {
    expect(acceptsGzip(header as string | string[] | undefined)).toBe(expected);
  });
});

describe('ifNoneMatchHits', () => {
  const etag = weakEtag('abc123');

  it('builds a weak tag', () => expect(etag).toBe('W/"abc123"'));

  it.each([
    ['W/"abc123"', true],
    ['"abc123"', true],
    ['"other", W/"abc123"', true],
    ['*', true],
    [['"x"', 'W/"abc123"'], true],
    [undefined, false],
    ['', false],
    ['"abc1234"', false],
    ['W/"abc"', false],
    ['abc123', false],
  ])('%j → %s', (header, expected) => {
    expect(ifNoneMatchHits(header as string | string[] | undefined, etag)).toBe(expected);
  });
});
